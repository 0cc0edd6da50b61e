"""The shared gateway scenarios (``tests/gateways/test_contract_scenarios.py``) and the
per-gateway drivers that tell them how to make each fake approve, decline, fail or lose an
answer. Adding a gateway to the suite is one driver class in ``drivers.py`` and one entry in
``DRIVERS``."""
