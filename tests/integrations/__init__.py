"""Integrations against in-process fakes of the vendors."""
