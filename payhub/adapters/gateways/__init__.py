"""Gateway adapters: one module per gateway, each speaking that gateway's public API."""
