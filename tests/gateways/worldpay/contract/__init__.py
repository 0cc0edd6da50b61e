"""Worldpay's contract: the cnpAPI schema (namespace ``http://www.vantivcnp.com/schema``) as
Worldpay compiles it into its ``vantivecommercesdk`` Python SDK (PyXB bindings in
``vantivsdk.fields``, generated from the cnpAPI XSDs).

An online request or answer is checked twice:

1. walking the XML, every element and attribute must be one the schema declares at that
   place (PyXB's parser, unlike a validating XML parser, lets unknown elements through);
2. the document must parse with the SDK's bindings, which enforce the content model
   (element order, required elements, occurrences) and the simple types' facets
   (lengths, patterns, enumerations such as ``orderSource``).
"""

from __future__ import annotations

import logging
from typing import Any
from xml.etree import ElementTree as ET

import pyxb
import pyxb.binding.basis
from vantivsdk import fields as cnp

from tests.gateways.contracts import ContractViolation

logging.getLogger("pyxb").setLevel(logging.ERROR)  # it logs every ambiguous path it meets

NAMESPACE = "http://www.vantivcnp.com/schema"
# Worldpay's online duplicate checking page (CNP-API onlinedupecheck.htm) says a duplicate is
# answered with the original response marked ``duplicate="true"``; the SDK's compiled schema
# declares that attribute only on funding instructions, so answers may carry it anyway.
_ANSWER_ATTRIBUTES = frozenset({"duplicate"})


def validate(document: bytes | str) -> None:
    """Raise ``ContractViolation`` unless ``document`` is valid cnpAPI XML.

    Answers marked ``duplicate="true"`` are checked without that attribute (see above)."""
    try:
        root = ET.fromstring(document)  # noqa: S314 - test traffic only
    except ET.ParseError as e:
        raise ContractViolation(f"not XML: {e}") from None
    name = _local(root.tag)
    element = getattr(cnp, name, None)
    if not isinstance(element, pyxb.binding.basis.element) or not root.tag.startswith(
        f"{{{NAMESPACE}}}"
    ):
        raise ContractViolation(f"{root.tag} is not a cnpAPI document element")
    answer = name.endswith("Response")
    _walk(element.typeDefinition(), root, name, answer=answer)
    if answer:
        for node in root.iter():
            for attribute in _ANSWER_ATTRIBUTES & node.attrib.keys():
                del node.attrib[attribute]
        document = ET.tostring(root)
    try:
        cnp.CreateFromDocument(document)
    except (pyxb.PyXBException, ValueError, TypeError) as e:
        text = str(e).replace(f"{{{NAMESPACE}}}", "").strip()
        first = text.splitlines()[0] if text else type(e).__name__
        raise ContractViolation(f"{name}: {first}") from None


def _walk(kind: Any, node: ET.Element, path: str, *, answer: bool) -> None:
    attributes = {
        use.name().localName()
        for use in getattr(kind, "_AttributeMap", {}).values()  # type: ignore[union-attr]
    }
    for attribute in node.attrib:
        extra = answer and attribute in _ANSWER_ATTRIBUTES
        if attribute not in attributes and not attribute.startswith("{") and not extra:
            raise ContractViolation(f"{path} has no attribute {attribute!r}")
    element_map = getattr(kind, "_ElementMap", None)
    children = list(node)
    if element_map is None:
        if children:
            raise ContractViolation(f"{path} takes no child elements")
        return
    for child in children:
        if not child.tag.startswith(f"{{{NAMESPACE}}}"):
            raise ContractViolation(f"{path}: {child.tag} is outside the cnpAPI namespace")
        name = _local(child.tag)
        use = element_map.get(pyxb.namespace.ExpandedName(cnp.Namespace, name))
        if use is None:
            use = _substitute(element_map, name)
        if use is None:
            raise ContractViolation(f"{path} has no element {name!r}")
        binding = use if isinstance(use, pyxb.binding.basis.element) else use.elementBinding()
        _walk(binding.typeDefinition(), child, f"{path}.{name}", answer=answer)


def _substitute(element_map: dict[Any, Any], name: str) -> Any:
    """An element standing in for an abstract head (``transaction`` -> ``sale``)."""
    candidate = getattr(cnp, name, None)
    if not isinstance(candidate, pyxb.binding.basis.element):
        return None
    for use in element_map.values():
        if candidate.substitutesFor(use.elementBinding()):
            return candidate
    return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
