"""The input shorthand (docs/rules/input-shorthand.md): `send("increase")`,
`send("networkTapped", id="blob")` or `send({"networkTapped": {"id": "blob"}})`, as the
JSON text the library takes."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._text import JSON, _to_json

# Inputs sent by case name, encoded once: the hot path of send("increase").
_encoded_names: dict[str, bytes] = {}
_ENCODED_NAMES_LIMIT = 4096


def _input_json(input: str | Mapping[str, Any], fields: Mapping[str, JSON]) -> bytes:
    """An input as `Instance.send` takes it, as JSON text."""
    if isinstance(input, str):
        if fields:
            return _to_json({input: dict(fields)}, "the input")
        cached = _encoded_names.get(input)
        if cached is not None:
            return cached
        if input.isidentifier():
            # Without the json module: an identifier needs no escaping.
            data = b'"' + input.encode("utf-8") + b'"'
            if len(_encoded_names) < _ENCODED_NAMES_LIMIT:
                _encoded_names[input] = data
            return data
        return _to_json(input, "the input")
    if isinstance(input, Mapping):
        if fields:
            raise TypeError("give the fields either inside the mapping or as keywords, not both")
        return _to_json(input if isinstance(input, dict) else dict(input), "the input")
    raise TypeError(f"an input is a case name or a mapping, not {type(input).__name__}")


#: The shorthand's rule by its public name (the shared test vectors call it this).
input_json = _input_json
