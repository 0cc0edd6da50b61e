"""The pure domain core: values, rules and decisions.

No I/O, no clock reads, no hidden randomness.
"""
