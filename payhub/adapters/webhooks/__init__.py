"""Outbound webhook delivery over HTTP."""
