"""Receipt documents rendered for payers (the PDF of the receipt page)."""
