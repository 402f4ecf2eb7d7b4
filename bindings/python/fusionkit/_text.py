"""Text and JSON between Python and the library: UTF-8 for what goes in, the library's
compact JSON read back fast, and integers checked before ctypes would wrap them."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from ctypes import c_char_p
from typing import Any, Final

from .errors import InvalidArgumentError, InvalidUTF8Error

#: Any value JSON can carry, as the json module reads it.
JSON = Any

_U64_LIMIT = 1 << 64

# Compact, UTF-8 (not \u-escaped), and strict: NaN and infinity are not JSON.
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# The json module's C scanner, called directly: json.loads spends more time finding the
# encoding and skipping whitespace around a small state than scanning it (see bench.py).
# (getattr: typeshed does not declare JSONDecoder.scan_once, the C scanner json.loads ends in.)
_scan_once: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")  # noqa: B009 (typeshed lacks it)


def _parse(text: bytes) -> JSON:
    """Reads JSON the library wrote: compact, one value, nothing around it."""
    string = text.decode("utf-8")
    try:
        value, end = _scan_once(string, 0)
    except StopIteration:
        end = -1
    if end != len(string):
        return json.loads(string)  # not the library's usual shape: let json decide, and explain
    return value


def _owned(c: Any, text: c_char_p) -> bytes:
    """Copies owned text out and frees it with the library's fk_free, exactly once."""
    try:
        return text.value or b""
    finally:
        c.fk_free(text)


def _utf8(value: str | bytes, what: str) -> bytes:
    """Text for the library: bytes as they are (so that a caller can send any bytes,
    valid or not), str as UTF-8. A str holding lone surrogates has no UTF-8 form; that is
    refused here with the status the library gives for invalid UTF-8."""
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidUTF8Error(f"{what} is not valid UTF-8: {error}", status="FK_ERR_INVALID_UTF8") from None


def _to_json(value: JSON, what: str) -> bytes:
    try:
        text = _encoder.encode(value)
    except (ValueError, RecursionError) as error:
        # NaN and infinities (JSON has neither), a container holding itself, nesting
        # deeper than Python recurses: a FusionError like every refusal (a value of a
        # type JSON lacks stays a TypeError).
        raise InvalidArgumentError(f"{what} cannot be written as JSON: {error}", status="FK_ERR_INVALID_ARGUMENT") from None
    return _utf8(text, what)


def _u64(value: int, what: str) -> int:
    """ctypes silently wraps integers into uint64_t; refuse what does not fit instead."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < _U64_LIMIT:
        raise InvalidArgumentError(f"{what} {value} is out of range: it must fit an unsigned 64-bit integer",
                                   status="FK_ERR_INVALID_ARGUMENT")
    return value


def _pairs_without_duplicates(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    result: dict[str, JSON] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f'duplicate key "{key}" in object')
        result[key] = value
    return result


def _refuse_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _check_scalars(value: JSON) -> None:
    """Refuses strings no UTF-8 can hold (a lone surrogate from a \\u escape)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a lone surrogate
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


#: The deepest nesting of arrays and objects the library's JSON parser reads: the default
#: and the most of FK_LIMIT_JSON_DEPTH (include/fusionkit.h), `[]` being one level. Deeper
#: JSON is malformed to every front end (`fusion test` says "nesting deeper than 512 levels").
JSON_MAX_DEPTH: Final = 512

# A string (skipped whole; one left open runs to the end, so that each character is read
# once) or a bracket: enough to follow nesting without parsing.
_STRING_OR_BRACKET: Final = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def too_deep(text: str, limit: int = JSON_MAX_DEPTH) -> int | None:
    """Where JSON text first nests deeper than `limit` levels (the index of the bracket
    that goes past it), or None. Read before the json module, which recurses once per
    level and so meets RecursionError, not an error, on text nested thousands deep. Text
    that is not JSON may be misjudged only past the point where the json module stops
    at its first error."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        bracket = text[match.start()]
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif bracket in "]}":
            depth -= 1
    return None


def strict_loads(text: bytes | str) -> JSON:
    """JSON read as the library reads it (include/fusionkit.h, "What the parser refuses
    that RFC 8259 allows"), where the json module is lenient: NaN and Infinity, a key
    twice in one object, lone UTF-16 surrogates. Raises ValueError saying which."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs_without_duplicates, parse_constant=_refuse_constant)
    except RecursionError:
        # The json module recurses once per level: text nested thousands deep (a damaged
        # journal line, say) is refused as the library refuses it, not raised past callers.
        raise ValueError(f"nesting too deep to read (the library reads {JSON_MAX_DEPTH} levels at most)") from None
    try:
        _check_scalars(value)
    except UnicodeEncodeError:
        raise ValueError("unpaired UTF-16 surrogate in \\u escape") from None
    return value
