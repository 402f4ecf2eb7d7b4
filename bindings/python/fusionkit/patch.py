"""JSON Patch (RFC 6902, with RFC 6901 pointers): what a front end following
`Instance.state_patch` applies to the state it holds.

The one Python implementation (docs/rules/json-patch.md); its cases are the shared
vectors in Tests/vectors/json-patch, which the web client, Swift and Java read too.
"""
from __future__ import annotations

import copy
import re
from typing import Any

from .errors import PatchError
from .scenario._comparison import json_equal

__all__ = ["apply_patch", "parse_pointer", "PatchError"]

_INDEX = re.compile(r"0|[1-9][0-9]*")
_BAD_ESCAPE = re.compile(r"~(?![01])")


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer: "" is the whole document, "/a~1b/0" is ["a/b", "0"]."""
    if not isinstance(pointer, str):
        raise PatchError(f"a pointer is a string, not {type(pointer).__name__}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f'the pointer "{pointer}" does not start with "/"')
    if _BAD_ESCAPE.search(pointer):
        raise PatchError(f'the pointer "{pointer}" has a "~" not followed by 0 or 1')
    # ~1 before ~0, so that "~01" is "~1" and not "/".
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _index(token: str, array: list[Any], pointer: str, *, for_add: bool) -> int:
    if for_add and token == "-":
        return len(array)
    if not _INDEX.fullmatch(token):
        raise PatchError(f'"{token}" in "{pointer}" is not an array index')
    index = int(token)
    if index > len(array) or (not for_add and index == len(array)):
        raise PatchError(f'index {index} in "{pointer}" is out of range (length {len(array)})')
    return index


def _child(node: Any, token: str, pointer: str) -> Any:
    if isinstance(node, list):
        return node[_index(token, node, pointer, for_add=False)]
    if isinstance(node, dict) and token in node:
        return node[token]
    raise PatchError(f'"{pointer}" does not exist')


def _get(root: Any, pointer: str) -> Any:
    node = root
    for token in parse_pointer(pointer):
        node = _child(node, token, pointer)
    return node


def _parent(root: Any, tokens: list[str], pointer: str) -> Any:
    node = root
    for token in tokens[:-1]:
        node = _child(node, token, pointer)
    if not isinstance(node, (list, dict)):
        raise PatchError(f'"{pointer}" does not exist: its parent is not a container')
    return node


def _add(root: Any, pointer: str, value: Any) -> Any:
    tokens = parse_pointer(pointer)
    if not tokens:
        return value
    parent, last = _parent(root, tokens, pointer), tokens[-1]
    if isinstance(parent, list):
        parent.insert(_index(last, parent, pointer, for_add=True), value)
    else:
        parent[last] = value
    return root


def _remove(root: Any, pointer: str) -> tuple[Any, Any]:
    """The document without the value at `pointer`, and that value."""
    tokens = parse_pointer(pointer)
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, last = _parent(root, tokens, pointer), tokens[-1]
    if isinstance(parent, list):
        return root, parent.pop(_index(last, parent, pointer, for_add=False))
    if last not in parent:
        raise PatchError(f'"{pointer}" does not exist')
    return root, parent.pop(last)


def _member(operation: dict[str, Any], key: str) -> Any:
    if key not in operation:
        raise PatchError(f'operation "{operation.get("op")}" has no "{key}"')
    return operation[key]


def apply_patch(document: Any, patch: list[dict[str, Any]]) -> Any:
    """The document after the operations, in order (add, remove, replace, move, copy,
    test). `document` is not changed. A patch that fails anywhere (a missing path, an
    index out of range, a failed test) raises PatchError and gives nothing half done."""
    if not isinstance(patch, list):
        raise PatchError("a patch is a list of operations")
    root = copy.deepcopy(document)
    for operation in patch:
        if not isinstance(operation, dict):
            raise PatchError("an operation is an object")
        op, path = operation.get("op"), _member(operation, "path")
        if op == "add":
            root = _add(root, path, copy.deepcopy(_member(operation, "value")))
        elif op == "remove":
            root, _ = _remove(root, path)
        elif op == "replace":
            value = copy.deepcopy(_member(operation, "value"))
            if parse_pointer(path):
                root, _ = _remove(root, path)  # replace needs the value to be there
                root = _add(root, path, value)
            else:
                root = value
        elif op == "move":
            source = _member(operation, "from")
            if path == source:
                _get(root, source)
                continue
            if path.startswith(source + "/"):
                raise PatchError(f'cannot move "{source}" into its own child "{path}"')
            root, value = _remove(root, source)
            root = _add(root, path, value)
        elif op == "copy":
            root = _add(root, path, copy.deepcopy(_get(root, _member(operation, "from"))))
        elif op == "test":
            if not json_equal(_get(root, path), _member(operation, "value")):
                raise PatchError(f'test failed at "{path}"')
        else:
            raise PatchError(f'unknown operation "{op}"')
    return root
