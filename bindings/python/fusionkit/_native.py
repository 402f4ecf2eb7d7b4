"""Finding and opening a FusionKit library, checking its ABI version, and declaring the
prototype (argtypes/restype) of every function of include/fusionkit.h.

Nothing here knows about instances; `library.py` builds the Python API on top.
"""
from __future__ import annotations

import ctypes
import os
import sys
from _ctypes import FUNCFLAG_CDECL, FUNCFLAG_PYTHONAPI, CFuncPtr
from ctypes import POINTER, c_char_p, c_int32, c_int64, c_size_t, c_uint32, c_uint64, c_void_p
from pathlib import Path
from typing import Any

from .errors import AbiVersionError, LibraryLoadError

#: FK_ABI_VERSION of the header this package was written against.
ABI_VERSION = 1
#: FK_NUL_TERMINATED: (size_t)-1. The package always passes real lengths; this is for `Library.c` users.
NUL_TERMINATED = (1 << (8 * ctypes.sizeof(c_size_t))) - 1
#: The environment variable naming a library to load when `load()` gets no path.
LIBRARY_ENV = "FUSIONKIT_LIBRARY"
def library_file_name(name: str) -> str:
    """How this platform names a shared library: libName.so (Linux and other ELF
    systems), libName.dylib (macOS), Name.dll (Windows). The package's one place for it."""
    if sys.platform == "darwin":
        return f"lib{name}.dylib"
    if sys.platform == "win32":
        return f"{name}.dll"
    return f"lib{name}.so"


#: The example library's file name.
EXAMPLE_LIBRARY = library_file_name("FusionExamples")

# fk_change_fn: void (*)(void *user_data, fk_instance instance, uint64_t version)
CHANGE_FN = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_uint64)
# fk_request_fn: void (*)(void *user_data, fk_instance, const char *event_json, size_t event_len).
# event_json as c_void_p: it is read with its length, not up to a NUL.
REQUEST_FN = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_void_p, c_size_t)

_status = c_int32


class Buffer(ctypes.Structure):
    """fk_buffer: a buffer the caller owns, that fk_state_into and fk_send_and_read
    write the state into (data, capacity), setting its length and version."""

    _fields_ = [("data", c_void_p), ("capacity", c_size_t), ("length", c_size_t), ("version", c_uint64)]

class Call(ctypes.Structure):
    """fk_call, with its fk_buffer's fields written out (data, capacity, length, version)
    so that Python reads them without making a nested struct object each time; a pointer
    to it is also a valid fk_buffer pointer."""

    _fields_ = [("data", c_void_p), ("capacity", c_size_t), ("length", c_size_t), ("version", c_uint64),
                ("instance", c_uint64), ("input_len", c_size_t)]


# char ** receiving owned text. A c_char_p out-parameter: `.value` copies the text to bytes
# (JSON from the library never holds a raw NUL), then the same object goes to fk_free.
_out_text = POINTER(c_char_p)

# name: (restype, argtypes, required). Borrowed `const char *` returns are c_char_p (copied
# to bytes by ctypes, never freed); owned `char **` outputs are read, then freed with fk_free.
# Entry points added to the ABI after its first version are optional, as FusionHost treats
# them: a library without them still loads, and calling one says which function it lacks.
PROTOTYPES: dict[str, tuple[Any, list[Any], bool]] = {
    "fk_abi_version": (c_uint32, [], True),
    "fk_library_version": (c_char_p, [], True),
    "fk_status_name": (c_char_p, [_status], True),
    "fk_last_error_message": (c_char_p, [], True),
    "fk_manifest": (_status, [_out_text, POINTER(c_size_t)], True),
    "fk_free": (None, [c_void_p], True),
    "fk_create": (_status, [c_char_p, c_size_t, c_char_p, c_size_t, POINTER(c_uint64)], True),
    "fk_create_with_options": (_status, [c_char_p, c_size_t, c_char_p, c_size_t, POINTER(c_uint64)], False),
    "fk_destroy": (_status, [c_uint64], True),
    "fk_send": (_status, [c_uint64, c_char_p, c_size_t], True),
    "fk_state": (_status, [c_uint64, _out_text, POINTER(c_size_t), POINTER(c_uint64)], True),
    "fk_state_patch": (_status, [c_uint64, c_uint64, _out_text, POINTER(c_size_t), POINTER(c_uint64)], False),
    "fk_state_into": (_status, [c_uint64, POINTER(Buffer)], False),
    "fk_send_and_read": (_status, [c_uint64, c_char_p, c_size_t, POINTER(Buffer)], False),
    "fk_send_and_read_call": (_status, [POINTER(Call), c_char_p], False),
    "fk_version": (_status, [c_uint64, POINTER(c_uint64)], True),
    "fk_subscribe": (_status, [c_uint64, CHANGE_FN, c_void_p, POINTER(c_uint64)], True),
    "fk_unsubscribe": (_status, [c_uint64, c_uint64], True),
    "fk_advance_clock": (_status, [c_uint64, c_uint64], False),
    "fk_pending": (_status, [c_uint64, POINTER(c_uint64), POINTER(c_uint64)], False),
    "fk_next_wake": (_status, [c_uint64, POINTER(c_uint64)], False),
    "fk_checkpoint": (_status, [c_uint64, _out_text, POINTER(c_size_t)], False),
    "fk_restart_effects": (_status, [c_uint64], False),
    "fk_set_request_handler": (_status, [c_uint64, REQUEST_FN, c_void_p], False),
    "fk_poll_request": (_status, [c_uint64, _out_text, POINTER(c_size_t)], False),
    "fk_respond": (_status, [c_uint64, c_uint64, c_char_p, c_size_t], False),
    "fk_fail_request": (_status, [c_uint64, c_uint64, c_char_p, c_size_t], False),
    "fk_history": (_status, [c_uint64, _out_text, POINTER(c_size_t)], False),
    "fk_goto": (_status, [c_uint64, c_uint64, POINTER(c_uint64)], False),
    "fk_limit": (c_int64, [c_int32, c_int64], False),
    "fk_manifest_summary": (_status, [_out_text, POINTER(c_size_t)], False),
    "fk_feature_manifest": (_status, [c_char_p, c_size_t, _out_text, POINTER(c_size_t)], False),
}


class _HotFunction(CFuncPtr):
    """A function object called like a PyDLL function (the GIL kept), with no restype:
    ctypes then reads the result as a C int (fk_status is an int32_t) and makes the
    Python int directly, where a declared restype costs a look-up of its converter on
    every call (about a twentieth of a Counter round trip; see bench.py)."""

    _flags_ = FUNCFLAG_CDECL | FUNCFLAG_PYTHONAPI


def holding_the_gil(cdll: ctypes.CDLL, name: str) -> Any:
    """A second function object for `name`, for the round-trip hot path: an fk_status
    result, no argtypes (it is called with ctypes objects made once, which skips the
    per-argument conversion argtypes costs on every call), and called like a PyDLL
    function, without releasing the GIL around the call (releasing and taking it back
    costs about a tenth of a Counter round trip).

    Only for fk_send_and_read, fk_send_and_read_call and fk_state_into, which never wait for another thread
    that might need the GIL: the library calls back (change callbacks, request
    handlers) on this same thread, which holds it already, or on its own threads, which
    hold none of its locks while they wait for the GIL. The price: other Python threads
    wait while the library encodes a large state."""
    return _HotFunction((name, cdll))


def open_library(path: str | os.PathLike[str]) -> tuple[ctypes.CDLL, frozenset[str]]:
    """Opens the library at `path`, checks fk_abi_version() before any other call, and
    declares every prototype. Returns the handle and the names of the optional entry
    points it lacks."""
    location = Path(path)
    if not location.exists():
        raise LibraryLoadError(f"no library at {location}")
    if location.suffix == ".wasm":
        return open_sandboxed(location)
    try:
        # RTLD_LOCAL (ctypes' default on Linux): several libraries, even copies of one,
        # live side by side without their symbols mixing.
        cdll = ctypes.CDLL(str(location), mode=os.RTLD_LOCAL)
    except OSError as error:
        raise LibraryLoadError(f"cannot load {location}: {error}") from error
    try:
        abi_version = cdll.fk_abi_version
    except AttributeError:
        raise LibraryLoadError(f"{location} is not a FusionKit library: it exports no fk_abi_version") from None
    abi_version.restype = c_uint32
    abi_version.argtypes = []
    found = int(abi_version())
    if found != ABI_VERSION:
        raise AbiVersionError(
            f"{location} speaks FusionKit ABI version {found}, but this fusionkit package speaks "
            f"ABI version {ABI_VERSION}; use a library and a package built for the same version",
            found=found, expected=ABI_VERSION)
    missing: set[str] = set()
    for name, (restype, argtypes, required) in PROTOTYPES.items():
        try:
            function = getattr(cdll, name)
        except AttributeError:
            if required:
                raise LibraryLoadError(f"{location} lacks {name}, which every FusionKit library exports") from None
            missing.add(name)
            continue
        function.restype = restype
        function.argtypes = argtypes
    return cdll, frozenset(missing)


SANDBOX_ENV = "FUSIONKIT_SANDBOX_LIBRARY"
SANDBOX_LIBRARY = "libFusionSandbox.so"


def sandbox_library() -> Path:
    """libFusionSandbox.so, which runs a .wasm plugin behind the C ABI: $FUSIONKIT_SANDBOX_LIBRARY
    when set, else beside this package's bundled library, else a checkout's build."""
    configured = os.environ.get(SANDBOX_ENV)
    if configured:
        return Path(configured)
    candidates = [bundled_library().parent / SANDBOX_LIBRARY]
    for root in _repository_roots():
        candidates += [root / ".build" / "release" / SANDBOX_LIBRARY, root / ".build" / "debug" / SANDBOX_LIBRARY]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise LibraryLoadError(f"a .wasm plugin runs in {SANDBOX_LIBRARY}, and none was found (looked at "
                           f"{', '.join(map(str, candidates))}); build it with swift build or set ${SANDBOX_ENV}")


def open_sandboxed(location: Path) -> tuple[ctypes.CDLL, frozenset[str]]:
    """Opens libFusionSandbox.so and has it run the module at `location` with its default
    limits (1 s per call, 64 MiB per instance). One module per process: the sandbox library
    runs the module it opened first, and refuses another."""
    cdll, missing = open_library(sandbox_library())
    sandbox_open = cdll.fk_sandbox_open
    sandbox_open.restype = _status
    sandbox_open.argtypes = [c_char_p, c_size_t, c_uint64, c_uint64]
    encoded = str(location.absolute()).encode()
    if sandbox_open(encoded, len(encoded), 0, 0) != 0:
        message = (cdll.fk_last_error_message() or b"").decode("utf-8", "replace")
        raise LibraryLoadError(f"cannot run {location} sandboxed: {message}")
    return cdll, missing


def _repository_roots() -> list[Path]:
    """Checkouts of FusionKit to look in: the one holding this package (a source tree or
    an editable install), then the current directory and its parents."""
    roots: list[Path] = []
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for folder in (start, *start.parents):
            if (folder / "Package.swift").is_file() and (folder / "include" / "fusionkit.h").is_file():
                if folder not in roots:
                    roots.append(folder)
                break
    return roots


def bundled_library() -> Path:
    """Where a wheel built by scripts/build-wheel carries the library."""
    return Path(__file__).resolve().parent / "_lib" / EXAMPLE_LIBRARY


def candidate_paths() -> list[Path]:
    """Where `load()` looks, in order (see `find_library`)."""
    candidates: list[Path] = []
    configured = os.environ.get(LIBRARY_ENV)
    if configured:
        candidates.append(Path(configured))
    candidates.append(bundled_library())
    for root in _repository_roots():
        candidates.append(root / ".build" / "release" / EXAMPLE_LIBRARY)
        candidates.append(root / ".build" / "debug" / EXAMPLE_LIBRARY)
    return candidates


def find_library() -> Path:
    """The library `load()` opens when given no path: $FUSIONKIT_LIBRARY when set (and
    then only it: a wrong setting is an error, not a reason to load something else); else
    the one bundled in the installed package; else the FusionKit checkout's
    .build/release, then .build/debug."""
    configured = os.environ.get(LIBRARY_ENV)
    if configured:
        return Path(configured)
    candidates = candidate_paths()
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    looked = "\n  ".join(str(c) for c in candidates)
    raise LibraryLoadError(
        f"no FusionKit library found; looked in:\n  {looked}\n"
        f"build one with `swift build --product FusionExamples` in the FusionKit checkout, "
        f"or set ${LIBRARY_ENV} to a library's path")
