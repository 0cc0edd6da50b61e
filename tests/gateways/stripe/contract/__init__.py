"""Stripe's request contract, read from the stripe package's generated TypedDicts (see SOURCE)."""
