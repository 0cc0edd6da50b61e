"""Checkout.com's request contract, read from its installed SDK (see SOURCE)."""
