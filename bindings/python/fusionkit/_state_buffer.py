"""The memory a round trip writes the state into: one fk_call (whose start is an
fk_buffer) per buffer, made once and reused."""
from __future__ import annotations

import ctypes
from ctypes import byref, c_size_t, c_uint64
from typing import Any

from ._native import NUL_TERMINATED, Call

# The first size of an instance's state buffer; it grows to fit the largest state read.
_STATE_BUFFER_START = 256


class _StateBuffer:
    """An fk_call (whose start is an fk_buffer) with its memory, made once per instance
    and reused: what fk_send_and_read_call, fk_send_and_read and fk_state_into write the
    state into. `length` and `version` are views of its fields as ctypes integers: their
    `.value` costs less than reading a field of the struct (or an item of a memoryview)."""

    __slots__ = ("memory", "size", "struct", "ref", "length", "version")

    def __init__(self, size: int, handle: int) -> None:
        self.struct = Call(instance=handle, input_len=NUL_TERMINATED)
        self.ref = byref(self.struct)
        self.length = c_size_t.from_buffer(self.struct, Call.length.offset)
        self.version = c_uint64.from_buffer(self.struct, Call.version.offset)
        self.resize(size)

    def resize(self, size: int) -> None:
        # Any: slicing a c_char array gives bytes (typeshed says a list), without the
        # full-size copy that `.raw` would make first.
        self.memory: Any = ctypes.create_string_buffer(size)
        self.size = size
        self.struct.data = ctypes.addressof(self.memory)
        self.struct.capacity = size
