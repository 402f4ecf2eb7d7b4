"""fusionkit: drive FusionKit features from Python, through the library's C ABI.

    import fusionkit

    lib = fusionkit.load()                 # the example library, or load("path/to/lib.so")
    with lib.create("counter") as counter:
        counter.send("increase")
        print(counter.state, counter.version)   # {'value': 1, 'isReset': False, 'alert': None} 1

Pure Python over ctypes: no compiled extension. See `load()` for where the library is
looked for, `Library` and `Instance` for the API, and `fusionkit.errors` for the
exception raised for each status code of include/fusionkit.h. `import fusionkit.scenario`
runs scenario files (`*.scenario.json`, docs/scenarios.md) through the library.
"""
from __future__ import annotations

from ._native import ABI_VERSION, LIBRARY_ENV, Buffer, candidate_paths, find_library
from .errors import (AbiVersionError, FusionError, InternalError, InvalidArgumentError, InvalidHandleError,
                     InvalidInputError, InvalidResponseError, InvalidStateError, InvalidUTF8Error, LibraryLoadError,
                     LimitExceededError, MalformedJSONError, MissingFunctionError, NullArgumentError,
                     UnknownFeatureError, UnknownInputError, UnknownRequestError, UnknownSubscriptionError)
from .library import JSON, LIMITS, HostEvent, Instance, Library, Subscription, load
from .manifest import FeatureSpec, FeatureSummary, InputCase, InputField, LibraryInfo, Manifest, ManifestSummary
from .journal import JournalError, JournalWarning

__version__ = "0.1.0"

__all__ = [
    "ABI_VERSION", "LIBRARY_ENV", "JSON", "load", "find_library", "candidate_paths", "Buffer",
    "Library", "Instance", "Subscription", "HostEvent",
    "Manifest", "ManifestSummary", "LibraryInfo", "FeatureSpec", "FeatureSummary", "InputCase", "InputField",
    "FusionError", "LibraryLoadError", "AbiVersionError", "MissingFunctionError",
    "NullArgumentError", "InvalidHandleError", "InvalidUTF8Error", "MalformedJSONError", "UnknownFeatureError",
    "UnknownInputError", "InvalidInputError", "InvalidStateError", "InvalidArgumentError",
    "UnknownSubscriptionError", "InternalError", "UnknownRequestError", "InvalidResponseError",
    "LimitExceededError", "LIMITS", "JournalError", "JournalWarning",
]
