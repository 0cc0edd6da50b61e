"""The merchant's catalog pages: products, categories (colours and order), tax rates,
locations with their settings, and the registers of each location.

Every page and form calls the same services as the API (``shop.products``,
``shop.categories``, ``shop.tax_rates``, ``shop.locations``, ``shop.registers``), so the
rules (and their errors) are the API's: a location with an active register cannot be
switched off, nor the last active one (Location rule 1); a default location must be active.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, Parameter

from payhub.domain.catalog import ProductKind
from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.money import format_money
from payhub.domain.portal import PortalUser
from payhub.hub import MerchantScope
from payhub.services.catalog import ProductInput
from payhub.services.locations import LocationInput
from payhub_server.portal.session import Form, Shop, portal_page, redirect
from payhub_server.portal.shop_forms import (
    address_fields,
    address_of,
    colour_css,
    decimal_of,
    field_errors,
    int_of,
    raise_if,
    text_of,
)

LIST_MAX = 200
CategoryParam = Annotated[str | None, Parameter(query="category", required=False)]
ShowParam = Annotated[str | None, Parameter(query="show", required=False)]
SECTIONS = (
    ("Products", "/portal/catalog"),
    ("Categories", "/portal/catalog/categories"),
    ("Tax rates", "/portal/catalog/tax-rates"),
    ("Locations and registers", "/portal/catalog/locations"),
)


def _page(
    request: Request[Any, Any, Any],
    template: str,
    user: PortalUser,
    title: str,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    **context: Any,
) -> Response[bytes]:
    return portal_page(
        request,
        template,
        user,
        title=title,
        status=status,
        errors=errors or {},
        catalog_sections=SECTIONS,
        money=format_money,
        **context,
    )


def _conflict(e: Conflict | NotFound) -> dict[str, str]:
    return {"form": e.detail}


def _categories(shop: MerchantScope) -> list[Any]:
    rows = shop.categories.list(limit=LIST_MAX, include_inactive=True).items
    return sorted(rows, key=lambda c: (not c.active, c.sort_order, c.name.casefold()))


def _rates(shop: MerchantScope) -> list[Any]:
    return shop.tax_rates.list(limit=LIST_MAX, include_inactive=True).items


@get("/portal/catalog/colours.css", sync_to_thread=True)
def colours(shop: Shop) -> Response[bytes]:
    """The categories' colours as classes (``.cat-<id>``): the CSP allows no inline style."""
    rows = shop.categories.list(limit=LIST_MAX, include_inactive=True).items
    css = colour_css([(c.id, c.color) for c in rows])
    return Response(css.encode(), media_type="text/css; charset=utf-8")


# --- products ----------------------------------------------------------------------------------


@get("/portal/catalog", sync_to_thread=True)
def products(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    category: CategoryParam = None,
    show: ShowParam = None,
) -> Response[bytes]:
    categories = _categories(shop)
    wanted = category if category and any(c.id == category for c in categories) else None
    rows = shop.products.list(
        limit=LIST_MAX, category_id=wanted, include_inactive=show == "all"
    ).items
    return _page(
        request,
        "portal/catalog/products.html",
        user,
        "Catalog: products",
        products=rows,
        categories={c.id: c for c in categories},
        category_list=categories,
        category=wanted or "",
        show=show or "",
    )


def _product_input(form: dict[str, str]) -> ProductInput:
    errors: list[FieldError] = []
    price = decimal_of(form, "unitPrice", errors)
    try:
        kind = ProductKind(form.get("kind", "Service"))
    except ValueError:
        errors.append(FieldError("kind", "must be Service, NonInventory or Inventory"))
        kind = ProductKind.SERVICE
    raise_if(errors)
    assert price is not None
    return ProductInput(
        name=form.get("name", ""),
        unit_price=price,
        currency=(form.get("currency", "") or "USD").strip().upper(),
        sku=text_of(form, "sku"),
        description=text_of(form, "description"),
        kind=kind,
        taxable=form.get("taxable") == "on",
        category_id=text_of(form, "categoryId"),
    )


def _product_form(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    *,
    product: Any = None,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    if values is None:
        values = (
            {
                "name": product.name,
                "sku": product.sku or "",
                "description": product.description or "",
                "unitPrice": f"{product.unit_price.amount}",
                "currency": product.unit_price.currency,
                "kind": product.kind.value,
                "taxable": "on" if product.taxable else "",
                "categoryId": product.category_id or "",
            }
            if product
            else {"currency": "USD", "kind": "Service", "taxable": "on"}
        )
    return _page(
        request,
        "portal/catalog/product.html",
        user,
        f"Product: {product.name}" if product else "New product",
        status=status,
        errors=errors,
        product=product,
        values=values,
        kinds=[k.value for k in ProductKind],
        category_list=[
            c for c in _categories(shop) if c.active or c.id == values.get("categoryId")
        ],
    )


@get("/portal/catalog/products/new", sync_to_thread=True)
def new_product(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return _product_form(request, user, shop)


@post("/portal/catalog/products", sync_to_thread=True, status_code=303)
def create_product(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        made = shop.products.create(_product_input(form))
    except ValidationError as e:
        return _product_form(request, user, shop, values=form, errors=field_errors(e), status=400)
    except (Conflict, NotFound) as e:
        return _product_form(request, user, shop, values=form, errors=_conflict(e), status=409)
    return redirect(f"/portal/catalog/products/{made.id}")


@get("/portal/catalog/products/{product_id:str}", sync_to_thread=True)
def product(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, product_id: FromPath[str]
) -> Response[bytes]:
    return _product_form(request, user, shop, product=shop.products.get(product_id))


@post("/portal/catalog/products/{product_id:str}", sync_to_thread=True, status_code=303)
def edit_product(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    product_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    current = shop.products.get(product_id)
    try:
        shop.products.replace(current.id, _product_input(form))
    except ValidationError as e:
        return _product_form(
            request, user, shop, product=current, values=form, errors=field_errors(e), status=400
        )
    except (Conflict, NotFound) as e:
        return _product_form(
            request, user, shop, product=current, values=form, errors=_conflict(e), status=409
        )
    return redirect(f"/portal/catalog/products/{current.id}")


@post("/portal/catalog/products/{product_id:str}/archive", sync_to_thread=True, status_code=303)
def archive_product(shop: Shop, product_id: FromPath[str]) -> Response[bytes]:
    """Products are never deleted (spec: Product rule 2): archiving deactivates."""
    shop.products.set_active(product_id, False)
    return redirect(f"/portal/catalog/products/{product_id}")


@post("/portal/catalog/products/{product_id:str}/restore", sync_to_thread=True, status_code=303)
def restore_product(shop: Shop, product_id: FromPath[str]) -> Response[bytes]:
    shop.products.set_active(product_id, True)
    return redirect(f"/portal/catalog/products/{product_id}")


# --- categories --------------------------------------------------------------------------------


def _category_values(form: dict[str, str]) -> tuple[str, str | None, int]:
    errors: list[FieldError] = []
    order = int_of(form, "sortOrder", errors, 0)
    raise_if(errors)
    colour = text_of(form, "color")
    return form.get("name", ""), colour, order or 0


def _categories_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    rows = _categories(shop)
    next_order = max((c.sort_order for c in rows), default=0) + 10
    return _page(
        request,
        "portal/catalog/categories.html",
        user,
        "Catalog: categories",
        status=status,
        errors=errors,
        rows=rows,
        values=values or {"color": "#0b5cad", "sortOrder": str(next_order)},
    )


@get("/portal/catalog/categories", sync_to_thread=True)
def categories(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return _categories_page(request, user, shop)


@post("/portal/catalog/categories", sync_to_thread=True, status_code=303)
def create_category(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        shop.categories.create(*_category_values(form))
    except ValidationError as e:
        return _categories_page(
            request, user, shop, values=form, errors=field_errors(e), status=400
        )
    except Conflict as e:
        return _categories_page(
            request, user, shop, values=form, errors={"name": e.detail}, status=409
        )
    return redirect("/portal/catalog/categories")


def _category_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    category: Any,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    return _page(
        request,
        "portal/catalog/category.html",
        user,
        f"Category: {category.name}",
        status=status,
        errors=errors,
        category=category,
        values=values
        or {
            "name": category.name,
            "color": category.color or "#e8eaed",
            "sortOrder": str(category.sort_order),
        },
    )


@get("/portal/catalog/categories/{category_id:str}", sync_to_thread=True)
def category(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, category_id: FromPath[str]
) -> Response[bytes]:
    return _category_page(request, user, shop.categories.get(category_id))


@post("/portal/catalog/categories/{category_id:str}", sync_to_thread=True, status_code=303)
def edit_category(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    category_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    current = shop.categories.get(category_id)
    try:
        shop.categories.replace(current.id, *_category_values(form))
    except ValidationError as e:
        return _category_page(
            request, user, current, values=form, errors=field_errors(e), status=400
        )
    except Conflict as e:
        return _category_page(
            request, user, current, values=form, errors={"name": e.detail}, status=409
        )
    return redirect("/portal/catalog/categories")


@post("/portal/catalog/categories/{category_id:str}/archive", sync_to_thread=True, status_code=303)
def archive_category(shop: Shop, category_id: FromPath[str]) -> Response[bytes]:
    shop.categories.set_active(category_id, False)
    return redirect("/portal/catalog/categories")


@post("/portal/catalog/categories/{category_id:str}/restore", sync_to_thread=True, status_code=303)
def restore_category(shop: Shop, category_id: FromPath[str]) -> Response[bytes]:
    shop.categories.set_active(category_id, True)
    return redirect("/portal/catalog/categories")


# --- tax rates ---------------------------------------------------------------------------------


def _rate_values(form: dict[str, str]) -> tuple[str, Decimal]:
    errors: list[FieldError] = []
    percent = decimal_of(form, "percent", errors)
    raise_if(errors)
    assert percent is not None
    return form.get("name", ""), percent


def _rates_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
    editing: Any = None,
) -> Response[bytes]:
    return _page(
        request,
        "portal/catalog/tax_rates.html",
        user,
        "Catalog: tax rates",
        status=status,
        errors=errors,
        rows=_rates(shop),
        values=values or {},
        editing=editing,
    )


@get("/portal/catalog/tax-rates", sync_to_thread=True)
def tax_rates(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return _rates_page(request, user, shop)


@post("/portal/catalog/tax-rates", sync_to_thread=True, status_code=303)
def create_tax_rate(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        name, percent = _rate_values(form)
        shop.tax_rates.create(name, percent, form.get("isDefault") == "on")
    except ValidationError as e:
        return _rates_page(request, user, shop, values=form, errors=field_errors(e), status=400)
    return redirect("/portal/catalog/tax-rates")


@get("/portal/catalog/tax-rates/{tax_rate_id:str}", sync_to_thread=True)
def tax_rate(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, tax_rate_id: FromPath[str]
) -> Response[bytes]:
    view = shop.tax_rates.get(tax_rate_id)
    values = {"name": view.rate.name, "percent": f"{view.rate.percent.normalize():f}"}
    return _page(
        request,
        "portal/catalog/tax_rate.html",
        user,
        f"Tax rate: {view.rate.name}",
        view=view,
        values=values,
    )


@post("/portal/catalog/tax-rates/{tax_rate_id:str}", sync_to_thread=True, status_code=303)
def edit_tax_rate(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    tax_rate_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    view = shop.tax_rates.get(tax_rate_id)
    try:
        shop.tax_rates.replace(view.rate.id, *_rate_values(form))
    except ValidationError as e:
        return _page(
            request,
            "portal/catalog/tax_rate.html",
            user,
            f"Tax rate: {view.rate.name}",
            status=400,
            errors=field_errors(e),
            view=view,
            values=form,
        )
    return redirect("/portal/catalog/tax-rates")


@post("/portal/catalog/tax-rates/{tax_rate_id:str}/default", sync_to_thread=True, status_code=303)
def default_tax_rate(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, tax_rate_id: FromPath[str]
) -> Response[bytes]:
    try:
        shop.tax_rates.make_default(tax_rate_id)
    except Conflict as e:
        return _rates_page(request, user, shop, errors=_conflict(e), status=409)
    return redirect("/portal/catalog/tax-rates")


@post("/portal/catalog/tax-rates/{tax_rate_id:str}/archive", sync_to_thread=True, status_code=303)
def archive_tax_rate(shop: Shop, tax_rate_id: FromPath[str]) -> Response[bytes]:
    shop.tax_rates.set_active(tax_rate_id, False)
    return redirect("/portal/catalog/tax-rates")


@post("/portal/catalog/tax-rates/{tax_rate_id:str}/restore", sync_to_thread=True, status_code=303)
def restore_tax_rate(shop: Shop, tax_rate_id: FromPath[str]) -> Response[bytes]:
    shop.tax_rates.set_active(tax_rate_id, True)
    return redirect("/portal/catalog/tax-rates")


# --- locations, their settings and registers -------------------------------------------------


def _location_input(form: dict[str, str], is_active: bool = True) -> LocationInput:
    return LocationInput(
        name=form.get("name", ""),
        tax_rate_id=text_of(form, "taxRateId"),
        phone=text_of(form, "phone"),
        address=address_of(form, "address"),
        short_code=text_of(form, "shortCode"),
        is_active=is_active,
    )


_LOCATION_FIELDS = {f"address.{p}": f"address-{p}" for p in ("line1", "line2", "city")}
_LOCATION_FIELDS.update(
    {"address.state": "address-state", "address.postalCode": "address-postalCode",
     "address.country": "address-country"}
)  # fmt: skip


def _locations_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    rows = shop.locations.list(limit=LIST_MAX, include_inactive=True).items
    registers: dict[str, list[Any]] = {}
    for view in shop.registers.list():
        registers.setdefault(view.location.id, []).append(view.register)
    return _page(
        request,
        "portal/catalog/locations.html",
        user,
        "Catalog: locations and registers",
        status=status,
        errors=errors,
        rows=rows,
        registers=registers,
        settings=shop.locations.settings(),
        rates={r.rate.id: r.rate for r in _rates(shop)},
        rate_list=[r for r in _rates(shop) if r.rate.active],
        values=values or {},
        address=address_fields(None) if values is None else _address_values(values),
    )


def _address_values(form: dict[str, str]) -> dict[str, str]:
    return {k[len("address-") :]: v for k, v in form.items() if k.startswith("address-")} | {
        p: form.get(f"address-{p}", "")
        for p in ("line1", "line2", "city", "state", "postalCode", "country")
    }


@get("/portal/catalog/locations", sync_to_thread=True)
def locations(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return _locations_page(request, user, shop)


@post("/portal/catalog/locations", sync_to_thread=True, status_code=303)
def create_location(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        made = shop.locations.create(_location_input(form))
    except ValidationError as e:
        return _locations_page(
            request, user, shop, values=form, errors=field_errors(e, _LOCATION_FIELDS), status=400
        )
    except Conflict as e:
        return _locations_page(
            request, user, shop, values=form, errors={"shortCode": e.detail}, status=409
        )
    return redirect(f"/portal/catalog/locations/{made.location.id}")


@post("/portal/catalog/locations/settings", sync_to_thread=True, status_code=303)
def location_settings(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        shop.locations.put_settings(
            form.get("locationsEnabled") == "on", text_of(form, "defaultLocationId")
        )
    except ValidationError as e:
        return _locations_page(request, user, shop, errors=field_errors(e), status=400)
    return redirect("/portal/catalog/locations")


def _location_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    location_id: str,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    view = shop.locations.get(location_id)
    loc = view.location
    if values is None:
        values = {
            "name": loc.name,
            "taxRateId": loc.tax_rate_id or "",
            "phone": loc.phone or "",
            "shortCode": loc.short_code or "",
        }
        address = address_fields(loc.address)
    else:
        address = _address_values(values)
    rates = _rates(shop)
    return _page(
        request,
        "portal/catalog/location.html",
        user,
        f"Location: {loc.name}",
        status=status,
        errors=errors,
        view=view,
        values=values,
        address=address,
        rates={r.rate.id: r for r in rates},
        rate_list=[r for r in rates if r.rate.active or r.rate.id == loc.tax_rate_id],
        registers=[r.register for r in shop.registers.list(loc.id)],
    )


@get("/portal/catalog/locations/{location_id:str}", sync_to_thread=True)
def location(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, location_id: FromPath[str]
) -> Response[bytes]:
    return _location_page(request, user, shop, location_id)


@post("/portal/catalog/locations/{location_id:str}", sync_to_thread=True, status_code=303)
def edit_location(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    location_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    current = shop.locations.get(location_id).location
    try:
        shop.locations.replace(current.id, _location_input(form, form.get("isActive") == "on"))
    except ValidationError as e:
        errors = field_errors(e, _LOCATION_FIELDS)
        return _location_page(
            request, user, shop, current.id, values=form, errors=errors, status=400
        )
    except Conflict as e:
        return _location_page(
            request, user, shop, current.id, values=form, errors=_conflict(e), status=409
        )
    return redirect(f"/portal/catalog/locations/{current.id}")


@post("/portal/catalog/locations/{location_id:str}/switch", sync_to_thread=True, status_code=303)
def switch_location(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    location_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    """Switch a location on or off, keeping everything else (rule 1 refuses with 409)."""
    loc = shop.locations.get(location_id).location
    given = LocationInput(
        name=loc.name,
        tax_rate_id=loc.tax_rate_id,
        phone=loc.phone,
        address=loc.address,
        short_code=loc.short_code,
        is_active=form.get("active") == "on",
    )
    try:
        shop.locations.replace(loc.id, given)
    except Conflict as e:
        return _location_page(request, user, shop, loc.id, errors=_switch_error(e), status=409)
    return redirect(f"/portal/catalog/locations/{loc.id}")


def _switch_error(e: Conflict) -> dict[str, str]:
    if "register" in e.detail:
        return {
            "registers": "This location still has an active register. Switch its registers"
            " off below, then switch the location off."
        }
    if "last active" in e.detail:
        return {"form": "This is your last active location: a merchant keeps at least one on."}
    return {"form": e.detail}


@post("/portal/catalog/locations/{location_id:str}/default", sync_to_thread=True, status_code=303)
def default_location(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, location_id: FromPath[str]
) -> Response[bytes]:
    try:
        shop.locations.make_default(location_id)
    except Conflict as e:
        return _location_page(request, user, shop, location_id, errors=_conflict(e), status=409)
    return redirect(f"/portal/catalog/locations/{location_id}")


@post("/portal/catalog/locations/{location_id:str}/registers", sync_to_thread=True, status_code=303)
def create_register(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    location_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    try:
        shop.registers.create(location_id, form.get("registerName", ""))
    except ValidationError as e:
        errors = field_errors(e, {"name": "registerName"})
        return _location_page(request, user, shop, location_id, errors=errors, status=400)
    except Conflict as e:
        return _location_page(
            request, user, shop, location_id, errors={"registerName": e.detail}, status=409
        )
    return redirect(f"/portal/catalog/locations/{location_id}")


@post("/portal/catalog/registers/{register_id:str}/switch", sync_to_thread=True, status_code=303)
def switch_register(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    register_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    view = shop.registers.get(register_id)
    try:
        shop.registers.set_active(view.register.id, form.get("active") == "on")
    except Conflict as e:
        return _location_page(
            request, user, shop, view.location.id, errors={"registers": e.detail}, status=409
        )
    return redirect(f"/portal/catalog/locations/{view.location.id}")


@post("/portal/catalog/registers/{register_id:str}", sync_to_thread=True, status_code=303)
def rename_register(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    register_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    view = shop.registers.get(register_id)
    try:
        shop.registers.rename(view.register.id, form.get("name", ""))
    except ValidationError as e:
        errors = {"registers": next(iter(field_errors(e).values()))}
        return _location_page(request, user, shop, view.location.id, errors=errors, status=400)
    return redirect(f"/portal/catalog/locations/{view.location.id}")


CATALOG_HANDLERS = [
    colours,
    products,
    new_product,
    create_product,
    product,
    edit_product,
    archive_product,
    restore_product,
    categories,
    create_category,
    category,
    edit_category,
    archive_category,
    restore_category,
    tax_rates,
    create_tax_rate,
    tax_rate,
    edit_tax_rate,
    default_tax_rate,
    archive_tax_rate,
    restore_tax_rate,
    locations,
    create_location,
    location_settings,
    location,
    edit_location,
    switch_location,
    default_location,
    create_register,
    switch_register,
    rename_register,
]
