"""The public pages a payer opens by link: pay page, embeddable pay page and receipts."""
