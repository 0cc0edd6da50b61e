"""Reading gateway answers, and the errors for answers payhub cannot read or act on."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from payhub.domain.payments import GatewayCredentialsRejected, GatewayError


def title(gateway: str) -> str:
    """How a message names the gateway: its catalog display name, without the parenthesis."""
    from payhub.adapters.gateways.registry import default_catalog

    info = default_catalog().named(gateway)
    return info.display_name.split(" (")[0] if info else gateway


def unexpected(gateway: str, request_id: str | None = None, *, label: str = "") -> GatewayError:
    """An answer payhub cannot read: never guessed at, never echoed."""
    return GatewayError(
        f"{label or title(gateway)} answered in an unexpected shape",
        gateway=gateway,
        gateway_request_id=request_id,
    )


def credentials_rejected(
    gateway: str,
    *,
    label: str = "",
    what: str = "credentials",
    gateway_message: str | None = None,
    request_id: str | None = None,
) -> GatewayCredentialsRejected:
    """The gateway refused the merchant's credentials: the message says where to fix them."""
    pronoun = "them" if what.endswith("s") else "it"
    return GatewayCredentialsRejected(
        f"{label or title(gateway)} rejected the merchant's {what}; update {pronoun} with"
        f" PUT /api/merchant-accounts/{{ref}}/credentials/{gateway}",
        gateway=gateway,
        gateway_message=gateway_message,
        gateway_request_id=request_id,
    )


def json_value(content: bytes) -> Any:
    """A JSON answer with decimals kept exact; None for an empty or unreadable body."""
    if not content.strip():
        return None
    try:
        return json.loads(content, parse_float=Decimal)
    except ValueError:
        return None


def json_object(
    content: bytes, gateway: str, request_id: str | None = None, *, label: str = ""
) -> dict[str, Any]:
    """A JSON object answer, or the unexpected-answer error."""
    value = json_value(content)
    if not isinstance(value, dict):
        raise unexpected(gateway, request_id, label=label)
    return value


def require_text(
    obj: Mapping[str, Any], key: str, gateway: str, request_id: str | None = None
) -> str:
    """A field that must be a non-empty string, or the unexpected-answer error."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise unexpected(gateway, request_id)
    return value


def xml_root(
    content: bytes, gateway: str, request_id: str | None = None, *, label: str = ""
) -> ET.Element:
    """An XML answer's root; documents declaring entities or a DTD are refused unread."""
    upper = content.upper()
    if b"<!DOCTYPE" in upper or b"<!ENTITY" in upper:
        raise unexpected(gateway, request_id, label=label)
    try:
        return ET.fromstring(content)  # noqa: S314 - no DTD or entities, checked above
    except ET.ParseError:
        raise unexpected(gateway, request_id, label=label) from None
