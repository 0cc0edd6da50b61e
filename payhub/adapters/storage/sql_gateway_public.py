"""A merchant's public client configuration per gateway (publishable keys and the like).

Kept apart from ``gateway_credentials.sealed`` on purpose: these values are published in every
checkout page, so they are stored as plain JSON and read by the pages without opening secrets.
"""

from __future__ import annotations

import json
from datetime import datetime

from payhub.adapters.storage.sql import _Repo


class SqlGatewayPublicFields(_Repo):
    def put(self, merchant_id: str, gateway: str, fields: dict[str, str], at: datetime) -> None:
        """Replace the gateway's public fields (a credentials PUT replaces them all)."""
        self.db.execute(
            "INSERT INTO gateway_public_fields (merchant_id, gateway, fields, updated_at)"
            " VALUES (:m, :g, :fields, :at) ON CONFLICT (merchant_id, gateway) DO UPDATE"
            " SET fields = excluded.fields, updated_at = excluded.updated_at",
            {"m": merchant_id, "g": gateway, "fields": json.dumps(fields, sort_keys=True),
             "at": at},
        )  # fmt: skip

    def get(self, merchant_id: str, gateway: str) -> dict[str, str]:
        row = self._one(
            "SELECT fields FROM gateway_public_fields WHERE merchant_id = :m AND gateway = :g",
            m=merchant_id,
            g=gateway,
        )
        if row is None:
            return {}
        loaded = json.loads(row["fields"])
        return {str(k): str(v) for k, v in loaded.items()}
