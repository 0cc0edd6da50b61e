"""In-process fakes of the integrations' vendors, built from their public references."""
