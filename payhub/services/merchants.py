"""Merchant accounts of one provider, and their gateway credentials."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta

import attrs

from payhub.domain.accounts import (
    GatewayCredential,
    Merchant,
    check_time_zone,
    validate_new_merchant,
    zone_of,
)
from payhub.domain.environments import Environment
from payhub.domain.errors import FieldError, Forbidden, NotFound, ValidationError
from payhub.domain.gateway_public import split_fields
from payhub.domain.gateways import GatewayInfo
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps

API_SECRET_MAX = 4096
PAGE_MAX = 200


@attrs.frozen
class CredentialInput:
    api_secret: str = attrs.field(repr=False)
    environment: str
    enabled: bool
    additional_fields: dict[str, str] = attrs.field(factory=dict, repr=False)


@attrs.frozen
class CredentialStatus:
    """What may be said about stored credentials: everything but the secrets."""

    gateway: str
    environment: Environment
    enabled: bool
    additional_field_names: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    # Where the gateway posts its notifications (gateways that send them: Adyen), to be set
    # in the gateway's own dashboard; None for the others.
    notification_url: str | None = None


def notification_path(gateway: str, token: str) -> str:
    return f"/webhooks/gateways/{gateway}/{token}"


@attrs.frozen
class MerchantPage:
    merchants: list[Merchant]
    next_cursor: str | None


def find_merchant(uow: UnitOfWork, caller: Caller, reference: str) -> Merchant:
    """The caller's merchant with that reference: 404 if the provider has none, 403 if a
    merchant key names any merchant but its own."""
    merchant = uow.merchants.get_by_reference(caller.provider_id, reference)
    if caller.merchant_id is not None and (merchant is None or merchant.id != caller.merchant_id):
        raise Forbidden("this merchant key may only act for its own merchant")
    if merchant is None:
        raise NotFound(f"no merchant account '{reference}'")
    return merchant


class Merchants:
    def __init__(self, deps: Deps, caller: Caller) -> None:
        self._d = deps
        self._caller = caller

    def create(self, external_reference: str, display_name: str) -> Merchant:
        if self._caller.is_merchant_key:
            raise Forbidden("creating merchant accounts needs a provider key")
        ref, name = validate_new_merchant(external_reference, display_name)
        merchant = Merchant(
            id=self._d.new_id("mer"),
            provider_id=self._caller.provider_id,
            external_reference=ref,
            display_name=name,
            created_at=self._d.clock.now(),
        )
        with self._d.store.unit_of_work() as uow:
            uow.merchants.add(merchant)  # Conflict on a duplicate reference
        return merchant

    def get(self, reference: str) -> Merchant:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return find_merchant(uow, self._caller, reference)

    def set_time_zone(self, reference: str, time_zone: str) -> Merchant:
        """The portal's setting: texting hours and schedules follow the merchant's clock."""
        zone = check_time_zone(time_zone)
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, reference)
            uow.merchants.set_time_zone(merchant.id, zone)
        return attrs.evolve(merchant, time_zone=zone)

    def list(self, after: str | None = None, limit: int = 50) -> MerchantPage:
        """A page of merchants ordered by reference; a merchant key sees only its own."""
        if not 1 <= limit <= PAGE_MAX:
            raise ValidationError.for_field("limit", f"must be between 1 and {PAGE_MAX}")
        with self._d.store.unit_of_work(readonly=True) as uow:
            if self._caller.merchant_id is not None:
                own = uow.merchants.get(self._caller.merchant_id)
                rows = [own] if own and (after is None or own.external_reference > after) else []
                return MerchantPage(rows, None)
            rows = uow.merchants.list(self._caller.provider_id, after=after, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return MerchantPage(rows, rows[-1].external_reference if more else None)


class Credentials:
    """Write-only gateway credentials, sealed with the ``SecretBox`` before storage."""

    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def _gateway(self, name: str) -> GatewayInfo:
        return self._d.catalog.get(name, self._caller.environment)

    def put(self, gateway_name: str, given: CredentialInput) -> CredentialStatus:
        info = self._gateway(gateway_name)
        errors: list[FieldError] = []
        secret = given.api_secret.strip()
        if not secret:
            errors.append(FieldError("apiSecret", "must not be blank"))
        elif len(secret) > API_SECRET_MAX:
            errors.append(FieldError("apiSecret", f"must be at most {API_SECRET_MAX} characters"))
        environment: Environment | None = None
        try:
            environment = Environment.parse(given.environment)
        except ValidationError as e:
            errors += e.fields
        if environment is not None and environment is not self._caller.environment:
            errors.append(
                FieldError(
                    "environment",
                    f"a {self._caller.environment.value.lower()} key accepts only"
                    f" {self._caller.environment.value} credentials;"
                    " sandbox and production never mix",
                )
            )
        for name, value in given.additional_fields.items():
            if name not in info.credential_fields:
                allowed = ", ".join(info.credential_fields) or "none"
                errors.append(
                    FieldError(
                        f"additionalFields.{name}", f"unknown for {info.name} (allowed: {allowed})"
                    )
                )
            elif not value.strip() or len(value) > API_SECRET_MAX:
                errors.append(
                    FieldError(f"additionalFields.{name}", "must be 1 to 4096 characters")
                )
        # Public client values (publishable keys...) are checked and kept unsealed.
        sandbox = (environment or self._caller.environment) is Environment.SANDBOX
        private, public, public_errors = split_fields(
            info.public_fields, info.adapter_reads, given.additional_fields, sandbox
        )
        errors += public_errors
        if errors:
            raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
        assert environment is not None
        sealed = self._d.secrets.seal(json.dumps({"apiSecret": secret, "fields": private}).encode())
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            existing = uow.credentials.get(merchant.id, info.name)
            credential = GatewayCredential(
                merchant_id=merchant.id,
                gateway=info.name,
                environment=environment,
                enabled=given.enabled,
                sealed=sealed,
                created_at=existing.created_at if existing else now,
                updated_at=now,
                notification_token=(existing.notification_token if existing else None)
                or (self._d.new_id("gwn") if info.takes_notifications else None),
            )
            uow.credentials.put(credential)
            uow.gateway_public_fields.put(merchant.id, info.name, public, now)
        return self._status(credential, tuple(sorted(given.additional_fields)))

    def _status(self, c: GatewayCredential, names: tuple[str, ...]) -> CredentialStatus:
        url = None
        if c.notification_token is not None:
            url = self._d.page_url(notification_path(c.gateway, c.notification_token))
        return CredentialStatus(
            c.gateway, c.environment, c.enabled, names, c.created_at, c.updated_at, url
        )

    def list(self) -> list[CredentialStatus]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            stored = [
                (c, uow.gateway_public_fields.get(merchant.id, c.gateway))
                for c in uow.credentials.list(merchant.id)
            ]
        return [self._status(c, self._field_names(c, public)) for c, public in stored]

    def _field_names(self, c: GatewayCredential, public: dict[str, str]) -> tuple[str, ...]:
        opened = json.loads(self._d.secrets.open(c.sealed))
        return tuple(sorted({*opened.get("fields", {}), *public}))


def day_range(
    merchant: Merchant, first: date | None, last: date | None
) -> tuple[datetime | None, datetime | None]:
    """Days on the merchant's calendar as a UTC range: from the start of ``first`` to the
    end of ``last`` (either open); 400 when ``last`` comes before ``first``."""
    if first is not None and last is not None and last < first:
        raise ValidationError.for_field("to", "must not be before the first day")
    zone = zone_of(merchant)

    def start(day: date) -> datetime:
        return datetime.combine(day, time(0), zone).astimezone(UTC)

    return (
        start(first) if first is not None else None,
        start(last + timedelta(days=1)) if last is not None else None,
    )
