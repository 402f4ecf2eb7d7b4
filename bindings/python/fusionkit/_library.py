"""`Library`, a loaded FusionKit library, and `load()`, which finds and loads one."""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from ctypes import byref, c_char_p, c_uint64
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, TypedDict

from ._handle import _OK
from ._instance import Instance, LibraryFace
from ._native import PROTOTYPES, find_library, holding_the_gil, open_library
from ._text import JSON, _owned, _to_json, _utf8, strict_loads
from .errors import FusionError, InvalidArgumentError, InvalidStateError, MissingFunctionError, error_for_status
from .journal import JournaledInstance
from .manifest import FeatureSpec, Manifest, ManifestSummary, feature_from_json
from .recording import RecordingInstance

#: The limits of fk_limit() by name, as `Library.limit` takes them (the FK_LIMIT_
#: constants of include/fusionkit.h, which documents each default and maximum).
LIMITS: dict[str, int] = {"length": 0, "json_depth": 1, "subscribers": 2, "host_requests": 3, "instances": 4}


class CreateOptions(TypedDict, total=False):
    """The keyword arguments of `Library.create` (see there), as one type: what a typed
    library module (`fusion types --lang python`) passes on with `**options`."""
    state: Mapping[str, JSON] | str | bytes | None
    seed: int | None
    clock: Literal["system", "manual"] | None
    requests: Literal["builtin", "host"] | None
    settings: Mapping[str, JSON] | None
    user: Mapping[str, JSON] | None
    history: int | None
    state_version: int | None
    options: Mapping[str, JSON] | str | bytes | None
    record: str | os.PathLike[str] | None
    journal: str | os.PathLike[str] | None


def load(path: str | os.PathLike[str] | None = None) -> Library:
    """Loads a FusionKit library and checks its ABI version before any other call.

    With no path: $FUSIONKIT_LIBRARY if set; else the library bundled in this package
    (wheels built by scripts/build-wheel carry one); else the FusionKit checkout's
    .build/release, then .build/debug (the checkout holding this package, or the current
    directory or one of its parents). Raises LibraryLoadError (AbiVersionError for
    another ABI version) saying which file and why.
    """
    return Library(find_library() if path is None else path)


class Library:
    """A loaded FusionKit library. Create instances of its features with `create()`.

    `c` is the ctypes handle with every prototype of include/fusionkit.h declared: the
    low level, for what the Python API deliberately cannot express (NULL pointers,
    made-up handles). Pair it with `check(status)` to get the same exceptions.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).absolute()
        self.c, self._missing = open_library(self.path)
        # The round-trip hot path's function objects (see holding_the_gil), made once.
        self._hot: dict[str, Any] = {name: holding_the_gil(self.c, name)
                                     for name in ("fk_send_and_read", "fk_send_and_read_call", "fk_state_into")
                                     if name not in self._missing}
        #: The ABI version the library speaks (equal to fusionkit.ABI_VERSION once loaded).
        self.abi_version: int = int(self.c.fk_abi_version())
        #: The library's own version, e.g. "0.1.0" (fk_library_version).
        self.version: str = (self.c.fk_library_version() or b"").decode("utf-8", "replace")
        # Features read one by one (feature()), by name.
        self._features: dict[str, FeatureSpec] = {}

    def __repr__(self) -> str:
        return f"<fusionkit.Library {self.path} v{self.version} ABI {self.abi_version}>"

    # -- errors ---------------------------------------------------------------------

    def error(self, status: int, function: str | None = None) -> FusionError:
        """The exception for a status just returned on this thread. Reads the message
        first, before any other library call can replace it."""
        message = self.c.fk_last_error_message()
        name = self.c.fk_status_name(status)
        return error_for_status(status, (name or b"").decode("utf-8", "replace"),
                                (message or b"").decode("utf-8", "replace"), function)

    def check(self, status: int, function: str | None = None) -> None:
        """Raises the exception for `status` unless it is FK_OK. Call it right after the
        call that returned the status, on the same thread."""
        if status != _OK:
            raise self.error(status, function)

    def status_name(self, status: int) -> str:
        """fk_status_name: "FK_ERR_UNKNOWN_INPUT", or "FK_ERR_UNKNOWN_STATUS"."""
        return (self.c.fk_status_name(status) or b"").decode("utf-8", "replace")

    def last_error_message(self) -> str:
        """fk_last_error_message on this thread: "" after a successful call."""
        return (self.c.fk_last_error_message() or b"").decode("utf-8", "replace")

    def require(self, function: str) -> None:
        """Raises MissingFunctionError when the library lacks an optional entry point."""
        if function in self._missing:
            raise MissingFunctionError(f"{self.path.name} lacks {function}: it was built before that function was added")

    def limit(self, name: str | int, new_value: int | None = None) -> int:
        """fk_limit: the value of a limit (a key of `LIMITS`, or its FK_LIMIT_ number)
        before the call, and, with `new_value`, sets it (clamped to the limit's maximum).
        Limits hold for the whole library; going past one raises LimitExceededError."""
        self.require("fk_limit")
        number = LIMITS.get(name) if isinstance(name, str) else name
        if number is None:
            raise InvalidArgumentError(f"unknown limit {name!r}; the limits are: {', '.join(LIMITS)}", status="FK_ERR_INVALID_ARGUMENT")
        if new_value is not None and new_value < 0:
            raise InvalidArgumentError(f"a limit is 0 or more, not {new_value}", status="FK_ERR_INVALID_ARGUMENT")
        old = int(self.c.fk_limit(number, -1 if new_value is None else new_value))
        if old < 0:
            raise InvalidArgumentError(f"{self.path.name} has no limit number {number}", status="FK_ERR_INVALID_ARGUMENT")
        return old

    # -- the manifest ----------------------------------------------------------------

    def manifest_json(self) -> str:
        """fk_manifest, as the text the library wrote."""
        return self._owned_text("fk_manifest").decode("utf-8")

    def _owned_text(self, function: str, *arguments: Any) -> bytes:
        """Calls a function that hands back owned text (char **, size_t *) after `arguments`."""
        text = c_char_p()
        status = getattr(self.c, function)(*arguments, byref(text), None)
        if status != _OK:
            raise self.error(status, function)
        return _owned(self.c, text)

    @cached_property
    def manifest(self) -> Manifest:
        """The library's features, their inputs and the shape of their state: the whole
        manifest, read on first use (it makes the library describe every feature; use
        `summary` or `feature(name)` for less)."""
        return Manifest.from_json(self.manifest_json())

    @cached_property
    def summary(self) -> ManifestSummary:
        """The library and each feature's name, summary and state version
        (fk_manifest_summary: no feature is described), read on first use; from the whole
        manifest for a library built before that function."""
        if "fk_manifest_summary" in self._missing:
            return ManifestSummary.from_json(self.manifest_json())
        return ManifestSummary.from_json(self._owned_text("fk_manifest_summary"))

    def feature(self, name: str) -> FeatureSpec:
        """The feature called `name`, with its inputs and schemas, read once on first use
        (fk_feature_manifest describes only that feature); KeyError lists the features."""
        known = self._features.get(name)
        if known is not None:
            return known
        self.summary.feature(name)  # KeyError naming the features
        if "fk_feature_manifest" in self._missing or "manifest" in self.__dict__:
            spec = self.manifest.feature(name)
        else:
            data = name.encode("utf-8")
            spec = feature_from_json(self._owned_text("fk_feature_manifest", data, len(data)))
        self._features[name] = spec  # a race makes the same spec twice: harmless
        return spec

    @property
    def features(self) -> tuple[str, ...]:
        return self.summary.feature_names

    @property
    def optional_functions(self) -> tuple[str, ...]:
        """The optional functions of include/fusionkit.h this library exports (looked up
        in the library itself, so also right for one built before manifests listed them);
        calling a missing one raises MissingFunctionError naming it."""
        return tuple(name for name, (_, _, required) in PROTOTYPES.items() if not required and name not in self._missing)

    # -- instances -------------------------------------------------------------------

    def create(self, feature: str | bytes, *, state: Mapping[str, JSON] | str | bytes | None = None,
               seed: int | None = None, clock: Literal["system", "manual"] | None = None,
               requests: Literal["builtin", "host"] | None = None, settings: Mapping[str, JSON] | None = None,
               user: Mapping[str, JSON] | None = None, history: int | None = None, state_version: int | None = None,
               options: Mapping[str, JSON] | str | bytes | None = None,
               record: str | os.PathLike[str] | None = None,
               journal: str | os.PathLike[str] | None = None) -> Instance:
        """Creates an instance of `feature` (fk_create, or fk_create_with_options when
        any option is given).

        state     the state to start from: a dict, or its JSON text.
        seed      seeds the instance's random source, so that what it draws repeats.
        clock     "manual": time stands still until advance_clock().
        requests  "host": the feature's requests go to set_request_handler()/poll_request().
        settings  feature settings, e.g. {"liveScan": False} for "wifi".
        user      the signed-in user this host vouches for, {"subject": ..., "claims": {...}}:
                  features read it to show who is signed in (Profile's `signedInAs`).
        history   how many versions to keep for time travel (`history()`, `goto()`, `back()`).
        state_version  the feature's state version `state` was saved at (the manifest's
                  `state_version` then); an older state is migrated by the feature or
                  refused (InvalidStateError naming both versions). `restore()` passes
                  it for a saved document.
        options   the whole options object instead (a dict or JSON text), for keys
                  this package does not know yet.
        record    a file to record the session to, as a scenario that replays it
                  (`fusion replay FILE`, `fusionkit.scenario.run(FILE)`): returns a
                  `fusionkit.recording.RecordingInstance`, see there.
        journal   a file that makes the session crash-safe: each change is on disk
                  before it is applied, and if the file holds a session (cut short by
                  a crash), it is resumed, with the same state and version, and the
                  other arguments are not used. Returns a
                  `fusionkit.journal.JournaledInstance`, see there. With `record` too,
                  each change is journaled, then recorded, on one clock; a journal
                  that holds a session already is resumed without `record`
                  (JournalError otherwise: a recording starts with its session).
        """
        if seed is not None and not isinstance(seed, bool) and isinstance(seed, int) and seed >= 1 << 63:
            seed = str(seed)  # type: ignore[assignment]  # the library reads a seed this large as digits (fusionkit.h)
        if record is not None or journal is not None:
            parsed: Mapping[str, JSON] | None = (
                json.loads(_utf8(options, "the options")) if isinstance(options, (str, bytes)) else options)
            given: dict[str, JSON] = dict(parsed) if parsed is not None else {
                key: value for key, value in (("state", state), ("seed", seed), ("clock", clock),
                                              ("requests", requests), ("settings", settings), ("user", user),
                                              ("history", history), ("stateVersion", state_version))
                if value is not None}
            if isinstance(given.get("state"), (str, bytes)):
                given["state"] = json.loads(given["state"])
            name_text = feature if isinstance(feature, str) else feature.decode("utf-8")
            if journal is not None:
                return JournaledInstance.open(self, name_text, given, journal, record=record)
            assert record is not None
            return RecordingInstance.start(self, name_text, given, record)
        name = _utf8(feature, "the feature name")
        out = c_uint64()
        chosen: dict[str, JSON] = {key: value for key, value in
                                   (("seed", seed), ("clock", clock), ("requests", requests), ("settings", settings),
                                    ("user", user), ("history", history), ("stateVersion", state_version))
                                   if value is not None}
        if options is None and not chosen:
            state_json = None if state is None else (
                _utf8(state, "the state") if isinstance(state, (str, bytes)) else _to_json(state, "the state"))
            status = self.c.fk_create(name, len(name), state_json, 0 if state_json is None else len(state_json),
                                      byref(out))
            function = "fk_create"
        else:
            self.require("fk_create_with_options")
            if options is not None:
                if chosen or state is not None:
                    raise TypeError("give the options either as `options` or as keywords, not both")
                options_json = (_utf8(options, "the options") if isinstance(options, (str, bytes))
                                else _to_json(options, "the options"))
            else:
                options_json = _to_json(chosen, "the options")
                if isinstance(state, (str, bytes)):
                    # State given as JSON text goes in as written, so the library reports its flaws.
                    rest = b"}" if options_json == b"{}" else b"," + options_json[1:]
                    options_json = b'{"state":' + _utf8(state, "the state") + rest
                elif state is not None:
                    options_json = _to_json({"state": state, **chosen}, "the options")
            status = self.c.fk_create_with_options(name, len(name), options_json, len(options_json), byref(out))
            function = "fk_create_with_options"
        if status != _OK:
            raise self.error(status, function)
        return Instance(self, name.decode("utf-8"), out.value)

    def restore(self, saved: Mapping[str, JSON] | str | os.PathLike[str], **options: Any) -> Instance:
        """Creates an instance from a saved state: the document `Instance.save()` returns
        or writes (the same as `fusion`'s `--state FILE`), or the path of such a file.
        The feature is the one it names; a state saved by an older version of the
        feature is migrated or refused (InvalidStateError naming both versions).
        `options` are those of `create()`, e.g. `history=100`."""
        document: Any = saved
        where = "the saved state"
        if isinstance(saved, (str, os.PathLike)):
            where = f"saved state {os.fspath(saved)}"
            # Read as `fusion --state` reads it: a key twice, NaN or a lone surrogate is refused
            # (json.load took the last of two "feature"s, a file that means one thing to
            # fusion and another here).
            with open(saved, "rb") as file:
                try:
                    document = strict_loads(file.read())
                except ValueError as error:
                    raise InvalidStateError(f"{where} is not JSON as the library reads it: {error}",
                                            status="FK_ERR_INVALID_STATE") from None
        if not isinstance(document, Mapping) or not isinstance(document.get("state"), Mapping):
            raise InvalidStateError(f'{where} is not a saved state: expected {{"feature": ..., "stateVersion": ..., "state": {{...}}}}', status="FK_ERR_INVALID_STATE")
        feature = document.get("feature")
        if not isinstance(feature, str):
            raise InvalidStateError(f'{where} names no "feature"', status="FK_ERR_INVALID_STATE")
        version = document.get("stateVersion", 1)
        if type(version) is not int or version < 1:
            raise InvalidStateError(f'{where} has a "stateVersion" that is not a whole number from 1: {version!r}', status="FK_ERR_INVALID_STATE")
        if version != self.summary.feature(feature).state_version:
            options["state_version"] = version
        return self.create(feature, state=document["state"], **options)

    def _create_with_options(self, feature: str, options: Mapping[str, JSON], cls: type[Instance]) -> Any:
        """fk_create_with_options, making an instance of `cls` (a subclass of Instance)."""
        self.require("fk_create_with_options")
        name = _utf8(feature, "the feature name")
        options_json = _to_json(options, "the options")
        out = c_uint64()
        status = self.c.fk_create_with_options(name, len(name), options_json, len(options_json), byref(out))
        if status != _OK:
            raise self.error(status, "fk_create_with_options")
        return cls(self, feature, out.value)


def _meets_the_protocols(library: Library) -> LibraryFace:
    """Never called: mypy checks here that `Library` is what instances expect of it."""
    return library
