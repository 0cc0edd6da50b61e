"""Validate Authorize.Net JSON bodies against AnetApiSchema.xsd, as the ``authorizenet`` SDK
ships it compiled (PyXB bindings in ``authorizenet.apicontractsv1``).

Authorize.Net's JSON API is its XML API in another notation: the body is the XML document
with the root element as the single key, repeated elements as lists, and the schema's
element order enforced (out of order is E00003). So a request is checked twice:

1. every key must be an element the schema declares at that place and every value must
   suit that element's simple type (length, pattern, numeric and enumeration facets), and
   the few fields the schema types as plain strings but documents as enumerations
   (``transactionType``, ``settingName``) must take one of the SDK's enumeration values;
2. the body, turned back into XML, must parse with the SDK's bindings, which enforce the
   content model: element order, required elements and how often each may occur.

Answers are checked with (1) only: the real JSON answers do not keep the schema's order
(``transactionResponse`` comes before ``messages``), and they write a repeated element's
wrapper as a bare list (``"errors": [...]`` for ``errors/error``).
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any
from xml.sax.saxutils import escape

import pyxb
import pyxb.binding.basis
from authorizenet import apicontractsv1 as anet

from tests.gateways.contracts import ContractViolation

logging.getLogger("pyxb").setLevel(logging.ERROR)  # it logs every ambiguous path it meets

NAMESPACE = "AnetApi/xml/v1/schema/AnetApiSchema.xsd"

# Strings in the schema whose allowed values the schema lists as enumerations elsewhere.
_ENUMERATED_STRINGS: dict[str, Any] = {
    "transactionType": anet.transactionTypeEnum,
    "settingName": anet.settingNameEnum,
}

# In the API reference's JSON answer samples but not declared by the XSD.
_ANSWER_EXTRAS = frozenset({"SupplementalDataQualificationIndicator"})


def validate_request(body: dict[str, Any]) -> None:
    """Raise ``ContractViolation`` unless ``body`` is a request the schema accepts."""
    if not isinstance(body, dict) or len(body) != 1:
        raise ContractViolation("an Authorize.Net request has exactly one root element")
    ((root, inner),) = body.items()
    element = getattr(anet, root, None)
    if not isinstance(element, pyxb.binding.basis.element) or not root.endswith("Request"):
        raise ContractViolation(f"{root} is not a request of AnetApiSchema.xsd")
    _walk(element.typeDefinition(), inner, root, answer=False)
    document = f'<{root} xmlns="{NAMESPACE}">{_children(inner)}</{root}>'
    try:
        anet.CreateFromDocument(document)
    except (pyxb.PyXBException, ValueError, TypeError) as e:
        raise ContractViolation(f"{root}: {_describe(e)}") from None


def validate_answer(request_root: str, body: dict[str, Any]) -> None:
    """Raise ``ContractViolation`` unless ``body`` uses only the answer's schema elements."""
    root = request_root.removesuffix("Request") + "Response"
    element = getattr(anet, root, None)
    if not isinstance(element, pyxb.binding.basis.element):
        raise ContractViolation(f"{root} is not an answer of AnetApiSchema.xsd")
    _walk(element.typeDefinition(), body, root, answer=True)


def _walk(kind: Any, value: object, path: str, *, answer: bool) -> None:
    if issubclass(kind, pyxb.binding.basis.simpleTypeDefinition):
        text = _text(value)
        try:
            kind(text)
        except (pyxb.PyXBException, ValueError, TypeError) as e:
            raise ContractViolation(f"{path}: {text!r} is not a valid {kind.__name__}") from e
        return
    if not isinstance(value, dict):
        raise ContractViolation(f"{path} must be an object")
    for key, child in value.items():
        use = kind._ElementMap.get(pyxb.namespace.ExpandedName(anet.Namespace, key))
        if use is None and answer and key in _ANSWER_EXTRAS:
            continue
        if use is None:
            raise ContractViolation(f"{path} has no element {key!r}")
        child_kind = use.elementBinding().typeDefinition()
        where = f"{path}.{key}"
        if key in _ENUMERATED_STRINGS and not answer:
            allowed = _ENUMERATED_STRINGS[key]._CF_enumeration.values()
            if child not in allowed:
                raise ContractViolation(f"{where}: {child!r} is not one of {sorted(allowed)}")
        items = child if isinstance(child, list) else [child]
        if isinstance(child, list) and not use.isPlural():
            wrapped = _only_plural_child(child_kind)
            if not (answer and wrapped):  # answers write a wrapper of a list as the list
                raise ContractViolation(f"{where} occurs at most once")
            child_kind = wrapped
        for item in items:
            _walk(child_kind, item, where, answer=answer)


def _only_plural_child(kind: Any) -> Any:
    if issubclass(kind, pyxb.binding.basis.simpleTypeDefinition):
        return None
    uses = list(kind._ElementMap.values())
    if len(uses) == 1 and uses[0].isPlural():
        return uses[0].elementBinding().typeDefinition()
    return None


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | Decimal | float):
        return str(value)
    raise ContractViolation(f"{value!r} is not a simple value")


def _children(value: dict[str, Any]) -> str:
    return "".join(_element(key, child) for key, child in value.items())


def _element(name: str, value: object) -> str:
    if isinstance(value, list):
        return "".join(_element(name, item) for item in value)
    inner = _children(value) if isinstance(value, dict) else escape(_text(value))
    return f"<{name}>{inner}</{name}>"


def _describe(error: Exception) -> str:
    text = str(error).replace("{" + NAMESPACE + "}", "").strip()
    return text.splitlines()[0] if text else type(error).__name__
