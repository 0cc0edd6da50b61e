"""Small value objects stored as JSON columns, read and written the same way everywhere."""

from __future__ import annotations

import json
from typing import Any

from payhub.domain.addresses import Address

_ADDRESS_KEYS = ("line1", "line2", "city", "state", "postal_code", "country")


def address_json(address: Address | None) -> str | None:
    if address is None:
        return None
    return json.dumps({k: getattr(address, k) for k in _ADDRESS_KEYS}, separators=(",", ":"))


def address_from_json(value: Any) -> Address | None:
    if value is None:
        return None
    data = json.loads(value)
    return Address(**{k: data.get(k) for k in _ADDRESS_KEYS})
