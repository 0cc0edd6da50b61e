"""Validate the GraphQL documents payhub sends to Braintree with graphql-core.

Only the specification's schema-independent rules run (see SOURCE for why Braintree's schema
is not used): they catch an unparsable document, an unused or unknown fragment, an unused or
undeclared variable, duplicate names, which Braintree rejects before looking at any field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import GraphQLError, GraphQLSyntaxError, build_schema, parse, validate
from graphql.language import OperationDefinitionNode
from graphql.validation import (
    ExecutableDefinitionsRule,
    KnownFragmentNamesRule,
    LoneAnonymousOperationRule,
    NoFragmentCyclesRule,
    NoUndefinedVariablesRule,
    NoUnusedFragmentsRule,
    NoUnusedVariablesRule,
    UniqueArgumentNamesRule,
    UniqueDirectivesPerLocationRule,
    UniqueFragmentNamesRule,
    UniqueInputFieldNamesRule,
    UniqueOperationNamesRule,
    UniqueVariableNamesRule,
)

from tests.gateways.contracts import ContractViolation

RULES = (
    ExecutableDefinitionsRule,
    UniqueOperationNamesRule,
    LoneAnonymousOperationRule,
    UniqueFragmentNamesRule,
    KnownFragmentNamesRule,
    NoUnusedFragmentsRule,
    NoFragmentCyclesRule,
    UniqueVariableNamesRule,
    NoUndefinedVariablesRule,
    NoUnusedVariablesRule,
    UniqueArgumentNamesRule,
    UniqueInputFieldNamesRule,
    UniqueDirectivesPerLocationRule,
)
# A placeholder: the rules above read only the document, never the schema's types.
_PLACEHOLDER = build_schema("type Query { placeholder: Boolean }")


def document_errors(query: str, variables: Mapping[str, Any] | None = None) -> list[str]:
    """Every way the document breaks the GraphQL specification's document rules."""
    try:
        document = parse(query)
    except GraphQLSyntaxError as error:
        return [f"syntax: {error.message}"]
    errors: list[GraphQLError] = validate(_PLACEHOLDER, document, RULES)
    found = [error.message for error in errors]
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != 1:
        found.append(f"expected one operation, found {len(operations)}")
    declared = {v.variable.name.value for op in operations for v in op.variable_definitions or ()}
    found.extend(
        f"variable ${name} is not declared" for name in (variables or {}) if name not in declared
    )
    return found


def validate_document(query: str, variables: Mapping[str, Any] | None = None) -> None:
    """Raise ``ContractViolation`` for a document Braintree would refuse as invalid GraphQL."""
    errors = document_errors(query, variables)
    if errors:
        raise ContractViolation("invalid GraphQL document: " + "; ".join(errors))
