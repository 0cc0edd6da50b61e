"""Vendors' own contracts, read from their installed SDK packages, that the fakes and the
adapter tests validate requests and answers against (issue 14). Nothing here copies a
vendor file: each validator reads the package named in its folder's SOURCE file."""


class ContractViolation(AssertionError):
    """A request or answer the vendor's published contract rejects."""
