"""The admin portal's users, sessions and one-time links (migration 18)."""

from __future__ import annotations

import json
from datetime import datetime

from payhub.adapters.storage.sql import Row, UniqueViolation, _Repo, opt_dt, to_bytes, to_dt
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict
from payhub.domain.portal import (
    PortalRole,
    PortalSessionRecord,
    PortalTokenRecord,
    PortalUserRecord,
    TokenPurpose,
)


def _user_params(user: PortalUserRecord) -> dict[str, object]:
    return {
        "id": user.id,
        "email": user.email,
        "display_name": user.display_name,
        "role": user.role.value,
        "environment": user.environment.value,
        "merchant_id": user.merchant_id,
        "provider_id": user.provider_id,
        "password_hash": user.password_hash,
        "totp_sealed": user.totp_sealed,
        "totp_enabled": user.totp_enabled,
        "totp_last_step": user.totp_last_step,
        "recovery_digests": json.dumps(list(user.recovery_digests)),
        "created_at": user.created_at,
        "disabled_at": user.disabled_at,
        "last_sign_in_at": user.last_sign_in_at,
    }


class SqlPortalUsers(_Repo):
    def add(self, user: PortalUserRecord) -> None:
        try:
            self.db.execute(
                "INSERT INTO portal_users (id, email, display_name, role, environment,"
                " merchant_id, provider_id, password_hash, totp_sealed, totp_enabled,"
                " totp_last_step, recovery_digests, created_at, disabled_at, last_sign_in_at)"
                " VALUES (:id, :email, :display_name, :role, :environment, :merchant_id,"
                " :provider_id, :password_hash, :totp_sealed, :totp_enabled, :totp_last_step,"
                " :recovery_digests, :created_at, :disabled_at, :last_sign_in_at)",
                _user_params(user),
            )
        except UniqueViolation:
            raise Conflict(f"a portal user with email '{user.email}' exists") from None

    @staticmethod
    def _load(row: Row) -> PortalUserRecord:
        return PortalUserRecord(
            id=row["id"],
            email=row["email"],
            display_name=row["display_name"],
            role=PortalRole(row["role"]),
            environment=Environment(row["environment"]),
            created_at=to_dt(row["created_at"]),
            merchant_id=row["merchant_id"],
            provider_id=row["provider_id"],
            password_hash=row["password_hash"],
            totp_sealed=None if row["totp_sealed"] is None else to_bytes(row["totp_sealed"]),
            totp_enabled=bool(row["totp_enabled"]),
            totp_last_step=int(row["totp_last_step"]),
            recovery_digests=tuple(json.loads(row["recovery_digests"])),
            disabled_at=opt_dt(row["disabled_at"]),
            last_sign_in_at=opt_dt(row["last_sign_in_at"]),
        )

    def get(self, user_id: str) -> PortalUserRecord | None:
        row = self._one("SELECT * FROM portal_users WHERE id = :id", id=user_id)
        return self._load(row) if row else None

    def get_by_email(self, email: str) -> PortalUserRecord | None:
        row = self._one("SELECT * FROM portal_users WHERE email = :e", e=email)
        return self._load(row) if row else None

    def save(self, user: PortalUserRecord) -> None:
        self.db.execute(
            "UPDATE portal_users SET display_name = :display_name, role = :role,"
            " password_hash = :password_hash, totp_sealed = :totp_sealed,"
            " totp_enabled = :totp_enabled, totp_last_step = :totp_last_step,"
            " recovery_digests = :recovery_digests, disabled_at = :disabled_at,"
            " last_sign_in_at = :last_sign_in_at WHERE id = :id",
            _user_params(user),
        )

    def list(
        self,
        merchant_id: str | None = None,
        operators: bool = False,
        environment: Environment | None = None,
    ) -> list[PortalUserRecord]:
        where: list[str] = []
        params: dict[str, object] = {}
        if merchant_id is not None:
            where.append("merchant_id = :m")
            params["m"] = merchant_id
        elif operators:
            where.append("merchant_id IS NULL")
        if environment is not None:
            where.append("environment = :env")
            params["env"] = environment.value
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self.db.query(f"SELECT * FROM portal_users{clause} ORDER BY email, id", params)
        return [self._load(r) for r in rows]


class SqlPortalSessions(_Repo):
    def add(self, session: PortalSessionRecord) -> None:
        self.db.execute(
            "INSERT INTO portal_sessions (digest, user_id, environment, second_factor_due,"
            " created_at, last_seen_at, expires_at) VALUES (:d, :u, :env, :due, :c, :seen, :exp)",
            {
                "d": session.digest,
                "u": session.user_id,
                "env": session.environment.value,
                "due": session.second_factor_due,
                "c": session.created_at,
                "seen": session.last_seen_at,
                "exp": session.expires_at,
            },
        )

    def get(self, digest: str) -> PortalSessionRecord | None:
        row = self._one("SELECT * FROM portal_sessions WHERE digest = :d", d=digest)
        if row is None:
            return None
        return PortalSessionRecord(
            digest=row["digest"],
            user_id=row["user_id"],
            environment=Environment(row["environment"]),
            created_at=to_dt(row["created_at"]),
            last_seen_at=to_dt(row["last_seen_at"]),
            expires_at=to_dt(row["expires_at"]),
            second_factor_due=bool(row["second_factor_due"]),
        )

    def touch(self, digest: str, at: datetime) -> None:
        self.db.execute(
            "UPDATE portal_sessions SET last_seen_at = :at"
            " WHERE digest = :d AND last_seen_at < :at",
            {"d": digest, "at": at},
        )

    def delete(self, digest: str) -> None:
        self.db.execute("DELETE FROM portal_sessions WHERE digest = :d", {"d": digest})

    def delete_for_user(self, user_id: str) -> int:
        return self.db.execute("DELETE FROM portal_sessions WHERE user_id = :u", {"u": user_id})

    def purge(self, now: datetime) -> int:
        return self.db.execute("DELETE FROM portal_sessions WHERE expires_at <= :n", {"n": now})


class SqlPortalTokens(_Repo):
    def add(self, token: PortalTokenRecord) -> None:
        self.db.execute(
            "INSERT INTO portal_tokens (digest, purpose, user_id, created_at, expires_at,"
            " used_at) VALUES (:d, :p, :u, :c, :e, :used)",
            {
                "d": token.digest,
                "p": token.purpose.value,
                "u": token.user_id,
                "c": token.created_at,
                "e": token.expires_at,
                "used": token.used_at,
            },
        )

    def get(self, digest: str, for_update: bool = False) -> PortalTokenRecord | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(f"SELECT * FROM portal_tokens WHERE digest = :d{lock}", d=digest)
        if row is None:
            return None
        return PortalTokenRecord(
            digest=row["digest"],
            purpose=TokenPurpose(row["purpose"]),
            user_id=row["user_id"],
            created_at=to_dt(row["created_at"]),
            expires_at=to_dt(row["expires_at"]),
            used_at=opt_dt(row["used_at"]),
        )

    def use(self, digest: str, at: datetime) -> bool:
        return (
            self.db.execute(
                "UPDATE portal_tokens SET used_at = :at WHERE digest = :d AND used_at IS NULL",
                {"d": digest, "at": at},
            )
            == 1
        )

    def revoke_for_user(self, user_id: str, purpose: TokenPurpose, at: datetime) -> int:
        return self.db.execute(
            "UPDATE portal_tokens SET used_at = :at"
            " WHERE user_id = :u AND purpose = :p AND used_at IS NULL",
            {"u": user_id, "p": purpose.value, "at": at},
        )
