"""Use cases: each public method is one unit of work over the ports."""
