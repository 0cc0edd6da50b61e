"""Merchant accounts and their write-only gateway credentials."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller
from litestar.params import FromPath, QueryParameter

from payhub.domain.accounts import Merchant
from payhub.services.merchants import CredentialInput, CredentialStatus
from payhub_server.deps import MERCHANT_KEY_OK, PROVIDER_ONLY, Tenant, api_get, api_post, api_put
from payhub_server.routes.wire import Items, Page


class MerchantCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    external_reference: str
    display_name: str


class MerchantOut(msgspec.Struct, rename="camel"):
    external_reference: str
    display_name: str
    created_at_utc: datetime

    @classmethod
    def of(cls, m: Merchant) -> MerchantOut:
        return cls(m.external_reference, m.display_name, m.created_at)


class CredentialsIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    api_secret: str
    environment: str
    enabled: bool = True
    additional_fields: dict[str, str] = msgspec.field(default_factory=dict)


class CredentialsOut(msgspec.Struct, rename="camel", omit_defaults=True):
    """Credential status. The secret and additional field values are never returned."""

    gateway: str
    environment: str
    enabled: bool
    configured: bool
    additional_field_names: list[str]
    created_at_utc: datetime
    updated_at_utc: datetime
    # Gateways that post outcomes to payhub (Adyen): the URL to set in their dashboard;
    # absent for the others.
    notification_url: str | None = None

    @classmethod
    def of(cls, c: CredentialStatus) -> CredentialsOut:
        return cls(
            gateway=c.gateway,
            environment=c.environment.value,
            enabled=c.enabled,
            configured=True,
            additional_field_names=list(c.additional_field_names),
            created_at_utc=c.created_at,
            updated_at_utc=c.updated_at,
            notification_url=c.notification_url,
        )


class MerchantController(Controller):
    path = "/api/merchant-accounts"
    tags = ["Merchant accounts"]

    @api_post("/", opt=PROVIDER_ONLY, summary="Create a merchant account")
    def create_merchant(self, data: MerchantCreate, tenant: Tenant) -> MerchantOut:
        """Provider key only. `externalReference` is unique per provider (409 on a duplicate)."""
        return MerchantOut.of(tenant.merchants.create(data.external_reference, data.display_name))

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List merchant accounts")
    def list_merchants(
        self,
        tenant: Tenant,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
        starting_after: Annotated[str | None, QueryParameter(name="startingAfter")] = None,
    ) -> Page[MerchantOut]:
        """Ordered by `externalReference`. A merchant key sees only its own merchant."""
        page = tenant.merchants.list(after=starting_after, limit=limit)
        return Page(
            [MerchantOut.of(m) for m in page.merchants],
            has_more=page.next_cursor is not None,
            next_cursor=page.next_cursor,
        )

    @api_get("/{ref:str}", opt=MERCHANT_KEY_OK, summary="Get a merchant account")
    def get_merchant(self, ref: FromPath[str], tenant: Tenant) -> MerchantOut:
        return MerchantOut.of(tenant.merchants.get(ref))

    @api_put(
        "/{ref:str}/credentials/{gateway:str}",
        opt=MERCHANT_KEY_OK,
        summary="Set a merchant's credentials for a gateway",
    )
    def put_credentials(
        self, ref: FromPath[str], gateway: FromPath[str], data: CredentialsIn, tenant: Tenant
    ) -> CredentialsOut:
        """Write-only: the response says what is configured, never the secret. A sandbox key
        accepts only `Sandbox` credentials and a production key only `Production` ones."""
        status = tenant.merchant(ref).credentials.put(
            gateway,
            CredentialInput(
                data.api_secret, data.environment, data.enabled, data.additional_fields
            ),
        )
        return CredentialsOut.of(status)

    @api_get(
        "/{ref:str}/credentials", opt=MERCHANT_KEY_OK, summary="List configured gateway credentials"
    )
    def list_credentials(self, ref: FromPath[str], tenant: Tenant) -> Items[CredentialsOut]:
        return Items([CredentialsOut.of(c) for c in tenant.merchant(ref).credentials.list()])
