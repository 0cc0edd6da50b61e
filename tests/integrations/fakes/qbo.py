"""A fake QuickBooks Online: Intuit's OAuth 2 server and the Accounting API v3, in process
(an ``httpx.MockTransport`` handler), validating what it receives.

Written from Intuit's developer reference (docs/integrations.md says what was checked
against what); nothing here is copied from Intuit or an SDK. What it enforces:

- OAuth: the authorize request's parameters; the token endpoint's HTTP Basic client
  authentication and form grants; authorization codes are single use; access tokens last
  one hour (the test clock); refresh tokens **rotate**: a refresh answers a new one and the
  old one is dead (``invalid_grant``), as is every token of a revoked grant.
- The API: ``Authorization: Bearer`` (401 Fault 3200 when unknown or expired),
  ``minorversion=75``, entity shapes (only the fields listed in ``ALLOWED``, required
  ones present, references to records that exist, ``Amount = Qty x UnitPrice``),
  ``DisplayName``/``Name`` unique (Fault 6240), updates only with the current
  ``SyncToken`` (Fault 5010 "Stale Object Error"), ``requestid`` answered from memory, a
  payment no larger than the invoice's balance; ``query`` (a small subset of Intuit's query
  language), ``cdc`` (changed since, 30 days at most) and injected 429/5xx answers with
  ``Retry-After``.
- Webhooks: ``notify`` builds a notification signed as Intuit signs it
  (``intuit-signature``: base64 HMAC-SHA256 of the body keyed with the verifier token).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import re
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import attrs
import httpx

from payhub.adapters.accounting.qbo import QboConfig
from payhub.domain.accounting import RemoteEnvironment

API_HOST = "qbo.fake"
OAUTH_HOST = "oauth.fake"
SCOPE = "com.intuit.quickbooks.accounting"
ACCESS_TTL = timedelta(hours=1)
REFRESH_TTL = timedelta(days=100)

_ADDRESS = {
    "Line1",
    "Line2",
    "Line3",
    "Line4",
    "Line5",
    "City",
    "CountrySubDivisionCode",
    "PostalCode",
    "Country",
}
_UPDATE = {"Id", "SyncToken", "sparse"}
# The fields payhub may send per entity (a subset of Intuit's reference for each).
ALLOWED: dict[str, set[str]] = {
    "Customer": {
        "DisplayName",
        "GivenName",
        "FamilyName",
        "CompanyName",
        "PrimaryEmailAddr",
        "PrimaryPhone",
        "Notes",
        "BillAddr",
        "ShipAddr",
        "Active",
    }
    | _UPDATE,
    "Item": {
        "Name",
        "Type",
        "IncomeAccountRef",
        "ExpenseAccountRef",
        "AssetAccountRef",
        "UnitPrice",
        "Taxable",
        "Active",
        "Description",
        "Sku",
        "TrackQtyOnHand",
        "QtyOnHand",
        "InvStartDate",
        "ParentRef",
        "SubItem",
    }
    | _UPDATE,
    "Invoice": {
        "DocNumber",
        "TxnDate",
        "DueDate",
        "CustomerRef",
        "Line",
        "TxnTaxDetail",
        "BillAddr",
        "ShipAddr",
        "PrivateNote",
        "CurrencyRef",
        "CustomerMemo",
    }
    | _UPDATE,
    "Payment": {"CustomerRef", "TotalAmt", "TxnDate", "PrivateNote", "Line", "PaymentRefNum"}
    | _UPDATE,
}
_LIMITS = {
    ("Customer", "DisplayName"): 500,
    ("Customer", "GivenName"): 100,
    ("Customer", "FamilyName"): 100,
    ("Customer", "CompanyName"): 100,
    ("Customer", "Notes"): 2000,
    ("Item", "Name"): 100,
    ("Item", "Sku"): 100,
    ("Item", "Description"): 4000,
    ("Invoice", "DocNumber"): 21,
    ("Invoice", "PrivateNote"): 4000,
    ("Payment", "PrivateNote"): 4000,
}


class Fault(Exception):
    def __init__(self, status: int, code: str, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail

    def body(self) -> dict[str, Any]:
        kind = "AUTHENTICATION" if self.status == 401 else "ValidationFault"
        error = {
            "Message": self.message,
            "Detail": self.detail or self.message,
            "code": self.code,
            "element": "",
        }
        return {"Fault": {"Error": [error], "type": kind}, "time": "2026-01-01T00:00:00.000-08:00"}


def _invalid(detail: str) -> Fault:
    return Fault(400, "2010", "Request has invalid or unsupported property", detail)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _ref(value: Any, what: str) -> str:
    if (
        not isinstance(value, dict)
        or set(value) - {"value", "name"}
        or not isinstance(value.get("value"), str)
    ):
        raise _invalid(f'{what} must be {{"value": "<id>"}}')
    return str(value["value"])


@attrs.define
class Company:
    realm_id: str
    name: str
    home_currency: str = "USD"
    automatic_sales_tax: bool = False
    # With automated sales tax, QuickBooks may answer its own tax figure.
    recomputed_tax: Decimal | None = None
    # The jurisdictions its automated sales tax reports on each invoice: (name, percent).
    jurisdictions: tuple[tuple[str, float], ...] = ()
    entities: dict[str, dict[str, dict[str, Any]]] = attrs.field(
        factory=lambda: {"Customer": {}, "Item": {}, "Invoice": {}, "Payment": {}, "Account": {}}
    )


class FakeQuickBooks:
    def __init__(self, now: Callable[[], datetime], *, verifier: str = "fake-verifier") -> None:
        self.now = now
        self.client_id = "ABfakeclientid"
        self.client_secret = "fake-client-secret"
        self.redirect_uri = "http://testserver/portal/integrations/accounting-online/callback"
        self.verifier = verifier
        self.authorize_url = f"https://{OAUTH_HOST}/connect/oauth2"
        self.companies: dict[str, Company] = {}
        self._codes: dict[str, str] = {}
        self._access: dict[str, tuple[str, datetime]] = {}
        self._refresh: dict[str, tuple[str, datetime]] = {}
        self._answers: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        self._ids = itertools.count(100)
        self._tokens = itertools.count(1)
        self.injected: deque[tuple[int, str | None]] = deque()
        self.drop_after_create = 0  # answer lost in transit after the create was made
        self.log: list[httpx.Request] = []
        self.creates: list[tuple[str, dict[str, Any]]] = []
        self.refreshes = 0

    # --- wiring -------------------------------------------------------------------------------

    def config(self) -> QboConfig:
        return QboConfig(
            client_id=self.client_id,
            client_secret=self.client_secret,
            redirect_uri=self.redirect_uri,
            webhook_verifier=self.verifier,
            authorize_url=self.authorize_url,
            token_url=f"https://{OAUTH_HOST}/oauth2/v1/tokens/bearer",
            revoke_url=f"https://{OAUTH_HOST}/v2/oauth2/tokens/revoke",
            api_urls={
                RemoteEnvironment.SANDBOX: f"https://sandbox.{API_HOST}",
                RemoteEnvironment.PRODUCTION: f"https://{API_HOST}",
            },
        )

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def add_company(self, realm_id: str, name: str, **kw: Any) -> Company:
        company = Company(realm_id, name, **kw)
        for aid, (aname, atype, sub) in {
            "79": ("Sales of Product Income", "Income", "SalesOfProductIncome"),
            "80": ("Cost of Goods Sold", "Cost of Goods Sold", "SuppliesMaterialsCogs"),
            "81": ("Inventory Asset", "Other Current Asset", "Inventory"),
        }.items():
            company.entities["Account"][aid] = {
                "Id": aid,
                "Name": aname,
                "AccountType": atype,
                "AccountSubType": sub,
                "SyncToken": "0",
            }
        self.companies[realm_id] = company
        return company

    # --- the sign-in page ------------------------------------------------------------------

    def sign_in(self, authorize_url: str, realm_id: str) -> str:
        """The merchant signs in and approves: the callback URL Intuit redirects to."""
        parts = urlsplit(authorize_url)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == self.config().authorize_url
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert q.get("client_id") == self.client_id, q
        assert q.get("response_type") == "code", q
        assert q.get("scope") == SCOPE, q
        assert q.get("redirect_uri") == self.redirect_uri, q
        assert q.get("state"), q
        code = f"code-{next(self._tokens)}"
        self._codes[code] = realm_id
        query = urlencode({"code": code, "state": q["state"], "realmId": realm_id})
        return f"{self.redirect_uri}?{query}"

    # --- what a test does to the company ---------------------------------------------------

    def revoke_grant(self, realm_id: str) -> None:
        """The company's admin disconnects the app in QuickBooks: every token dies."""
        for table in (self._access, self._refresh):
            for token in [t for t, (r, _) in table.items() if r == realm_id]:
                del table[token]

    def expire_refresh_tokens(self) -> None:
        for token, (realm, _) in list(self._refresh.items()):
            self._refresh[token] = (realm, self.now() - timedelta(seconds=1))

    def edit(self, realm_id: str, entity: str, remote_id: str, **fields: Any) -> None:
        """Someone edits the record in QuickBooks: its SyncToken moves on."""
        row = self.companies[realm_id].entities[entity][remote_id]
        row.update(fields)
        self._touch(row)

    def receive_payment(self, realm_id: str, invoice_id: str) -> None:
        """The invoice is paid in QuickBooks (a payment received there)."""
        company = self.companies[realm_id]
        invoice = company.entities["Invoice"][invoice_id]
        pid = str(next(self._ids))
        company.entities["Payment"][pid] = {
            "Id": pid,
            "SyncToken": "0",
            "TotalAmt": invoice["Balance"],
        }
        invoice["Balance"] = 0
        self._touch(invoice)

    def add_customer(self, realm_id: str, **fields: Any) -> dict[str, Any]:
        rid = str(next(self._ids))
        row = {"Id": rid, "SyncToken": "0", "Active": True, **fields}
        self._touch(row, bump=False)
        self.companies[realm_id].entities["Customer"][rid] = row
        return row

    def add_item(self, realm_id: str, **fields: Any) -> dict[str, Any]:
        rid = str(next(self._ids))
        row = {"Id": rid, "SyncToken": "0", "Active": True, **fields}
        self._touch(row, bump=False)
        self.companies[realm_id].entities["Item"][rid] = row
        return row

    def throttle(self, times: int = 1, retry_after: str | None = "2", status: int = 429) -> None:
        for _ in range(times):
            self.injected.append((status, retry_after))

    def notify(self, realm_id: str, entity: str, remote_id: str) -> tuple[bytes, str]:
        body = json.dumps(
            {
                "eventNotifications": [
                    {
                        "realmId": realm_id,
                        "dataChangeEvent": {
                            "entities": [
                                {
                                    "name": entity,
                                    "id": remote_id,
                                    "operation": "Update",
                                    "lastUpdated": self.now().isoformat(),
                                }
                            ]
                        },
                    }
                ]
            }
        ).encode()
        return body, self.sign(body)

    def sign(self, body: bytes) -> str:
        mac = hmac.new(self.verifier.encode(), body, hashlib.sha256).digest()
        return base64.b64encode(mac).decode()

    def records(self, realm_id: str, entity: str) -> list[dict[str, Any]]:
        return list(self.companies[realm_id].entities[entity].values())

    # --- the handler -----------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.log.append(request)
        if request.url.host == OAUTH_HOST:
            return self._oauth(request)
        if self.injected:
            status, retry_after = self.injected.popleft()
            headers = {"Retry-After": retry_after} if retry_after else {}
            return httpx.Response(
                status, headers=headers, json=Fault(status, "003001", "ThrottleExceeded").body()
            )
        try:
            realm, company = self._authorized(request)
            status, body = self._api(request, realm, company)
        except Fault as f:
            return httpx.Response(f.status, json=f.body())
        return httpx.Response(status, json=body)

    def _oauth(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/revoke"):
            token = json.loads(request.content).get("token")
            realm = self._refresh.get(token, ("", self.now()))[0]
            if realm:
                self.revoke_grant(realm)
            return httpx.Response(200)
        expected = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        if request.headers.get("Authorization") != f"Basic {expected}":
            return httpx.Response(401, json={"error": "invalid_client"})
        if request.headers.get("Content-Type", "").split(";")[0] != (
            "application/x-www-form-urlencoded"
        ):
            return httpx.Response(400, json={"error": "invalid_request"})
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        grant = form.get("grant_type")
        if grant == "authorization_code":
            realm = self._codes.pop(form.get("code", ""), None)
            if realm is None or form.get("redirect_uri") != self.redirect_uri:
                return httpx.Response(400, json={"error": "invalid_grant"})
        elif grant == "refresh_token":
            held = self._refresh.pop(form.get("refresh_token", ""), None)  # rotates: spent
            if held is None or held[1] <= self.now():
                return httpx.Response(400, json={"error": "invalid_grant"})
            realm = held[0]
            self.refreshes += 1
        else:
            return httpx.Response(400, json={"error": "unsupported_grant_type"})
        access, refresh = f"at-{next(self._tokens)}", f"rt-{next(self._tokens)}"
        self._access[access] = (realm, self.now() + ACCESS_TTL)
        self._refresh[refresh] = (realm, self.now() + REFRESH_TTL)
        return httpx.Response(
            200,
            json={
                "token_type": "bearer",
                "access_token": access,
                "expires_in": 3600,
                "refresh_token": refresh,
                "x_refresh_token_expires_in": int(REFRESH_TTL.total_seconds()),
            },
        )

    def _authorized(self, request: httpx.Request) -> tuple[str, Company]:
        match = re.fullmatch(r"/v3/company/([^/]+)/(.+)", request.url.path)
        if not match or not request.url.host.endswith(API_HOST):
            raise Fault(404, "404", "Not found")
        realm = match.group(1)
        auth = request.headers.get("Authorization", "")
        held = (
            self._access.get(auth.removeprefix("Bearer ")) if auth.startswith("Bearer ") else None
        )
        if held is None or held[0] != realm or held[1] <= self.now():
            raise Fault(
                401, "3200", "message=AuthenticationFailed; errorCode=003200; statusCode=401"
            )
        if request.url.params.get("minorversion") != "75":
            raise Fault(400, "2010", "minorversion must be 75")
        return realm, self.companies[realm]

    def _touch(self, row: dict[str, Any], bump: bool = True) -> None:
        if bump:
            row["SyncToken"] = str(int(row.get("SyncToken", "0")) + 1)
        row["MetaData"] = {"LastUpdatedTime": self.now().isoformat()}

    def _api(
        self, request: httpx.Request, realm: str, company: Company
    ) -> tuple[int, dict[str, Any]]:
        path = request.url.path.split(f"/v3/company/{realm}/", 1)[1]
        if request.method == "GET":
            return 200, self._read(path, request, company)
        entity = {
            "customer": "Customer",
            "item": "Item",
            "invoice": "Invoice",
            "payment": "Payment",
        }.get(path)
        if request.method != "POST" or entity is None:
            raise Fault(400, "4000", "unsupported operation")
        if request.headers.get("Content-Type", "").split(";")[0] != "application/json":
            raise Fault(415, "4001", "Content-Type must be application/json")
        body = json.loads(request.content)
        rid = request.url.params.get("requestid")
        if rid and (realm, rid) in self._answers:
            return self._answers[(realm, rid)]
        answer = (200, {entity: self._write(company, entity, body), "time": self.now().isoformat()})
        if rid:
            self._answers[(realm, rid)] = answer
        if "Id" not in body and self.drop_after_create > 0:
            self.drop_after_create -= 1
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return answer

    def _read(self, path: str, request: httpx.Request, company: Company) -> dict[str, Any]:
        if path == f"companyinfo/{company.realm_id}":
            return {"CompanyInfo": {"Id": "1", "CompanyName": company.name, "Country": "US"}}
        if path == "preferences":
            return {
                "Preferences": {
                    "CurrencyPrefs": {
                        "HomeCurrency": {"value": company.home_currency},
                        "MultiCurrencyEnabled": False,
                    },
                    "TaxPrefs": {
                        "PartnerTaxEnabled": company.automatic_sales_tax,
                        "UsingSalesTax": True,
                    },
                }
            }
        if path == "query":
            return self._query(request.url.params.get("query", ""), company)
        if path == "cdc":
            return self._cdc(request, company)
        entity, _, rid = path.partition("/")
        name = entity.capitalize()
        row = company.entities.get(name, {}).get(rid)
        if row is None:
            raise Fault(400, "610", "Object Not Found")
        return {name: row}

    def _query(self, text: str, company: Company) -> dict[str, Any]:
        m = re.fullmatch(
            r"select \* from (\w+)(?: where (\w+) = '((?:[^'\\]|\\.)*)')?"
            r"(?: STARTPOSITION (\d+))?(?: MAXRESULTS (\d+))?",
            text.strip(),
        )
        if not m:
            raise Fault(400, "4000", "QueryParserError", text)
        entity, field, value, start, most = m.groups()
        rows = list(company.entities.get(entity, {}).values())
        if field:
            value = re.sub(r"\\(.)", r"\1", value)
            rows = [r for r in rows if str(r.get(field)) == value]
        first = int(start or 1) - 1
        rows = rows[first : first + int(most or 100)]
        return {
            "QueryResponse": {entity: rows, "startPosition": first + 1, "maxResults": len(rows)}
            if rows
            else {}
        }

    def _cdc(self, request: httpx.Request, company: Company) -> dict[str, Any]:
        names = request.url.params.get("entities", "").split(",")
        since = datetime.fromisoformat(request.url.params["changedSince"].replace("Z", "+00:00"))
        if since < self.now() - timedelta(days=30):
            raise Fault(400, "4000", "changedSince must be within the last 30 days")
        blocks = []
        for name in names:
            rows = [
                r
                for r in company.entities[name].values()
                if datetime.fromisoformat(r["MetaData"]["LastUpdatedTime"]) > since
            ]
            blocks.append({name: rows[:1000], "startPosition": 1, "maxResults": len(rows)})
        return {"CDCResponse": [{"QueryResponse": blocks}], "time": self.now().isoformat()}

    # --- writes --------------------------------------------------------------------------------

    def _write(  # noqa: PLR0912 (one validation per rule of the reference, in order)
        self, company: Company, entity: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        unknown = set(body) - ALLOWED[entity]
        if unknown:
            raise _invalid(f"{entity} has no property {sorted(unknown)[0]}")
        for (ent, field), most in _LIMITS.items():
            if ent == entity and field in body and len(str(body[field])) > most:
                raise Fault(
                    400,
                    "6000",
                    "String length is either shorter or longer than supported",
                    f"{field} is longer than {most}",
                )
        for key in ("BillAddr", "ShipAddr"):
            if key in body and (not isinstance(body[key], dict) or set(body[key]) - _ADDRESS):
                raise _invalid(f"{key} has an unknown field")
        table = company.entities[entity]
        if "Id" in body:
            current = table.get(str(body["Id"]))
            if current is None:
                raise Fault(400, "610", "Object Not Found")
            if body.get("sparse") is not True:
                raise _invalid("payhub sends sparse updates only")
            if str(body.get("SyncToken")) != current["SyncToken"]:
                raise Fault(
                    400,
                    "5010",
                    "Stale Object Error",
                    "You and someone else were working on this at the same time.",
                )
            changes = {k: v for k, v in body.items() if k not in _UPDATE}
            self._check(company, entity, {**current, **changes}, current["Id"])
            current.update(changes)
            self._touch(current)
            return dict(current)
        row = {**body}
        self._check(company, entity, row, None)
        rid = str(next(self._ids))
        row.update({"Id": rid, "SyncToken": "0"})
        if entity == "Invoice":
            lines = sum(Decimal(str(line["Amount"])) for line in row["Line"])
            tax = Decimal(str(row.get("TxnTaxDetail", {}).get("TotalTax", 0)))
            if company.automatic_sales_tax:
                tax = company.recomputed_tax if company.recomputed_tax is not None else tax
                row["TxnTaxDetail"] = {
                    "TotalTax": float(tax),
                    "TaxLine": [
                        {
                            "DetailType": "TaxLineDetail",
                            "TaxLineDetail": {
                                "TaxRateRef": {"value": str(i + 1), "name": name},
                                "PercentBased": True,
                                "TaxPercent": percent,
                            },
                        }
                        for i, (name, percent) in enumerate(company.jurisdictions)
                    ],
                }
            row["TotalAmt"] = float(lines + tax)
            row["Balance"] = float(lines + tax)
        if entity == "Payment":
            for line in row["Line"]:
                invoice = company.entities["Invoice"][line["LinkedTxn"][0]["TxnId"]]
                invoice["Balance"] = float(
                    Decimal(str(invoice["Balance"])) - Decimal(str(line["Amount"]))
                )
                self._touch(invoice)
        self._touch(row, bump=False)
        table[rid] = row
        self.creates.append((entity, row))
        return dict(row)

    def _unique(
        self, company: Company, entity: str, field: str, value: Any, rid: str | None
    ) -> None:
        for other in company.entities[entity].values():
            if other.get(field) == value and other["Id"] != rid:
                raise Fault(
                    400,
                    "6240",
                    "Duplicate Name Exists Error",
                    f"The name supplied already exists. : Id={other['Id']}",
                )

    def _check(self, company: Company, entity: str, row: dict[str, Any], rid: str | None) -> None:
        getattr(self, f"_check_{entity.lower()}")(company, row, rid)

    def _check_customer(self, company: Company, row: dict[str, Any], rid: str | None) -> None:
        if not any(row.get(k) for k in ("DisplayName", "GivenName", "FamilyName")):
            raise Fault(400, "6000", "A name is required", "DisplayName or a name part")
        if "PrimaryEmailAddr" in row and set(row["PrimaryEmailAddr"]) != {"Address"}:
            raise _invalid('PrimaryEmailAddr is {"Address": …}')
        if "PrimaryPhone" in row and set(row["PrimaryPhone"]) != {"FreeFormNumber"}:
            raise _invalid('PrimaryPhone is {"FreeFormNumber": …}')
        self._unique(company, "Customer", "DisplayName", row.get("DisplayName"), rid)

    def _check_item(self, company: Company, row: dict[str, Any], rid: str | None) -> None:
        name = row.get("Name")
        if not isinstance(name, str) or not name or ":" in name or '"' in name:
            raise Fault(400, "6000", 'Item name is required and cannot contain : or "')
        kind = row.get("Type")
        if kind not in ("Service", "NonInventory", "Inventory", "Category"):
            raise _invalid("Type must be Service, NonInventory, Inventory or Category")
        if kind != "Category":
            account = _ref(row.get("IncomeAccountRef"), "IncomeAccountRef")
            if account not in company.entities["Account"]:
                raise Fault(400, "2500", "Invalid Reference Id", "IncomeAccountRef")
        if kind == "Inventory":
            if row.get("TrackQtyOnHand") is not True or not _is_number(row.get("QtyOnHand")):
                raise Fault(400, "6000", "Inventory items track their quantity on hand")
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(row.get("InvStartDate", ""))):
                raise Fault(400, "6000", "InvStartDate is required for inventory items")
            for ref in ("AssetAccountRef", "ExpenseAccountRef"):
                if _ref(row.get(ref), ref) not in company.entities["Account"]:
                    raise Fault(400, "2500", "Invalid Reference Id", ref)
        if "UnitPrice" in row and not _is_number(row["UnitPrice"]):
            raise _invalid("UnitPrice is a number")
        self._unique(company, "Item", "Name", name, rid)

    def _check_invoice(  # noqa: PLR0912 (one validation per rule of the reference)
        self, company: Company, row: dict[str, Any], rid: str | None
    ) -> None:
        if _ref(row.get("CustomerRef"), "CustomerRef") not in company.entities["Customer"]:
            raise Fault(400, "2500", "Invalid Reference Id", "CustomerRef")
        if (
            "CurrencyRef" in row
            and _ref(row["CurrencyRef"], "CurrencyRef") != company.home_currency
        ):
            raise Fault(400, "6000", "Multicurrency is off: only the home currency")
        lines = row.get("Line")
        if not isinstance(lines, list) or not lines:
            raise Fault(400, "6000", "An invoice needs at least one line")
        for line in lines:
            if line.get("DetailType") != "SalesItemLineDetail" or set(line) - {
                "DetailType",
                "Amount",
                "Description",
                "SalesItemLineDetail",
                "LineNum",
            }:
                raise _invalid("Line: only SalesItemLineDetail lines")
            detail = line["SalesItemLineDetail"]
            if set(detail) - {"ItemRef", "Qty", "UnitPrice", "TaxCodeRef"}:
                raise _invalid("SalesItemLineDetail has an unknown field")
            if _ref(detail.get("ItemRef"), "ItemRef") not in company.entities["Item"]:
                raise Fault(400, "2500", "Invalid Reference Id", "ItemRef")
            if _ref(detail.get("TaxCodeRef"), "TaxCodeRef") not in ("TAX", "NON"):
                raise Fault(400, "2500", "Invalid Reference Id", "TaxCodeRef")
            if not all(
                _is_number(v)
                for v in (line.get("Amount"), detail.get("Qty"), detail.get("UnitPrice"))
            ):
                raise _invalid("Amount, Qty and UnitPrice are numbers")
            expected = (Decimal(str(detail["Qty"])) * Decimal(str(detail["UnitPrice"]))).quantize(
                Decimal("0.01")
            )
            if Decimal(str(line["Amount"])).quantize(Decimal("0.01")) != expected:
                raise Fault(400, "6070", "Amount is not equal to UnitPrice * Qty")
        tax = row.get("TxnTaxDetail")
        if tax is not None and (
            set(tax) - {"TotalTax", "TxnTaxCodeRef"} or not _is_number(tax.get("TotalTax", 0))
        ):
            raise _invalid("TxnTaxDetail is {TotalTax, TxnTaxCodeRef}")
        for key in ("TxnDate", "DueDate"):
            if key in row and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(row[key])):
                raise _invalid(f"{key} is a date")

    def _check_payment(self, company: Company, row: dict[str, Any], rid: str | None) -> None:
        customer = _ref(row.get("CustomerRef"), "CustomerRef")
        if customer not in company.entities["Customer"] or not _is_number(row.get("TotalAmt")):
            raise Fault(400, "2500", "Invalid Reference Id", "CustomerRef / TotalAmt")
        total = Decimal(0)
        for line in row.get("Line") or []:
            if set(line) - {"Amount", "LinkedTxn"} or not _is_number(line.get("Amount")):
                raise _invalid("Payment Line is {Amount, LinkedTxn}")
            linked = line.get("LinkedTxn") or []
            if (
                len(linked) != 1
                or set(linked[0]) != {"TxnId", "TxnType"}
                or (linked[0]["TxnType"] != "Invoice")
            ):
                raise _invalid("LinkedTxn is [{TxnId, TxnType: Invoice}]")
            invoice = company.entities["Invoice"].get(linked[0]["TxnId"])
            if invoice is None or invoice["CustomerRef"]["value"] != customer:
                raise Fault(400, "2500", "Invalid Reference Id", "LinkedTxn.TxnId")
            if rid is None and Decimal(str(line["Amount"])) > Decimal(str(invoice["Balance"])):
                raise Fault(400, "6000", "The payment is more than the invoice's balance")
            total += Decimal(str(line["Amount"]))
        if total != Decimal(str(row["TotalAmt"])):
            raise Fault(400, "6000", "TotalAmt is not the sum of the lines")
