"""Accounting systems (QuickBooks Online)."""
