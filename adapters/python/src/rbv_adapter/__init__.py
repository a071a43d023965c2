"""rbv adapter SDK for Python: the protocol of rbv (PROTOCOL.md), so that an
adapter is only its decision methods. See README.md in adapters/python/."""

from .adapter import (
    BANDS,
    CAPABILITIES,
    DECISION_OF,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_PROFILE,
    PROTOCOL_VERSION,
    Adapter,
    BadRequest,
    Context,
    authorization_key,
    band_max,
    unsupported,
)
from .lossless import JsonError, JsonNumber, canonical, dumps, loads
from .schema import REQUEST_TYPES, RESPONSE_TYPES, Schema, schema_for

__version__ = "0.1.0"

__all__ = [
    "Adapter", "BadRequest", "Context", "unsupported", "band_max", "authorization_key",
    "PROTOCOL_VERSION", "BANDS", "CAPABILITIES", "DECISION_OF", "DEFAULT_PROFILE", "DEFAULT_MAX_LINE_BYTES",
    "JsonError", "JsonNumber", "canonical", "dumps", "loads",
    "REQUEST_TYPES", "RESPONSE_TYPES", "Schema", "schema_for",
]
