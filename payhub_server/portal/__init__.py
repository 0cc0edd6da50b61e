"""The admin portal: server-rendered pages for merchant staff and the operator (docs/portal.md)."""
