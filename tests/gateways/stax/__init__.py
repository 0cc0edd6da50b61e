"""stax: its fake, its contract check (where the vendor publishes one), its adapter,
contract, remote and scenario tests, mirroring payhub/adapters/gateways/stax/."""
