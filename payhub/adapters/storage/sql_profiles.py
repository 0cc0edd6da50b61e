"""Merchants' profiles: business details and logo (migration 20)."""

from __future__ import annotations

from datetime import datetime

from payhub.adapters.storage.sql import _Repo, opt_dt, to_bytes
from payhub.domain.addresses import Address
from payhub.domain.profiles import Logo, MerchantProfile

_ADDRESS = ("line1", "line2", "city", "state", "postal_code", "country")


class SqlMerchantProfiles(_Repo):
    def get(self, merchant_id: str) -> MerchantProfile:
        row = self._one("SELECT * FROM merchant_profiles WHERE merchant_id = :m", m=merchant_id)
        if row is None:
            return MerchantProfile()
        parts = {f: row[f"address_{f}"] for f in _ADDRESS}
        address = Address(**parts) if any(parts.values()) else None
        logo = (
            Logo(row["logo_type"], to_bytes(row["logo"]))
            if row["logo"] is not None and row["logo_type"]
            else None
        )
        return MerchantProfile(
            business_name=row["business_name"],
            contact_email=row["contact_email"],
            phone=row["phone"],
            address=address,
            logo=logo,
            updated_at=opt_dt(row["updated_at"]),
        )

    def put(self, merchant_id: str, profile: MerchantProfile, at: datetime) -> None:
        address = profile.address or Address()
        params: dict[str, object] = {
            "m": merchant_id,
            "business_name": profile.business_name,
            "contact_email": profile.contact_email,
            "phone": profile.phone,
            "logo_type": profile.logo.media_type if profile.logo else None,
            "logo": profile.logo.data if profile.logo else None,
            "at": at,
        }
        params.update({f"address_{f}": getattr(address, f) for f in _ADDRESS})
        columns = [k for k in params if k not in ("m", "at")]
        self.db.execute(
            f"INSERT INTO merchant_profiles (merchant_id, {', '.join(columns)}, updated_at)"
            f" VALUES (:m, {', '.join(':' + c for c in columns)}, :at)"
            " ON CONFLICT (merchant_id) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in [*columns, "updated_at"]),
            params,
        )
