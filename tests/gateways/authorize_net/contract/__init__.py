"""Authorize.Net's contract: AnetApiSchema.xsd as compiled into the ``authorizenet`` SDK."""

from tests.gateways.authorize_net.contract.schema import validate_answer, validate_request

__all__ = ["validate_answer", "validate_request"]
