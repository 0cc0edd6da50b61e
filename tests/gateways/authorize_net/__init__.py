"""authorize_net: its fake, its contract check (where the vendor publishes one), its adapter,
contract, remote and scenario tests, mirroring payhub/adapters/gateways/authorize_net/."""
