"""A short link as the API returns it."""

from __future__ import annotations

from datetime import datetime

import msgspec

from payhub.services.links import LinkView


class ShortLinkOut(msgspec.Struct, rename="camel"):
    code: str
    short_url: str | None
    target_url: str
    status: str
    merchant_reference: str | None
    purpose: str | None
    label: str | None
    client_reference: str | None
    click_count: int
    last_clicked_utc: datetime | None
    created_at_utc: datetime
    expires_at_utc: datetime | None
    revoked_at_utc: datetime | None
    revoke_reason: str | None

    @classmethod
    def of(cls, v: LinkView) -> ShortLinkOut:
        link = v.link
        return cls(
            code=link.code,
            short_url=v.short_url,
            target_url=link.target_url,
            status=v.status.value,
            merchant_reference=link.merchant_reference,
            purpose=link.purpose,
            label=link.label,
            client_reference=link.client_reference,
            click_count=v.clicks.count,
            last_clicked_utc=v.clicks.last_at,
            created_at_utc=link.created_at,
            expires_at_utc=link.expires_at,
            revoked_at_utc=link.revoked_at,
            revoke_reason=link.revoke_reason,
        )
