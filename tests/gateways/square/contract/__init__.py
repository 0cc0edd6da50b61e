"""Square's request and answer contract, read from the squareup SDK (see SOURCE)."""
