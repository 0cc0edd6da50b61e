"""Adapters: the ports implemented against real things (databases, gateways, senders)."""
