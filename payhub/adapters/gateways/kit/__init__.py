"""What the gateway adapters share besides sending (``gateways/http.py``).

- ``redaction``: the one policy for gateway texts that may reach an error's message or a
  transaction's ``support`` note (secrets and tokens hidden, card-like digit runs hidden,
  one length limit).
- ``declines``: the one table from ISO 8583 issuer codes and decline texts to payhub's
  ``DECLINE_CODES``.
- ``answers``: reading an answer (JSON, XML) and the errors for answers payhub cannot read.
"""
