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

# The public names, each from the one module that holds its concept (docs/layout.md).
from ._host_requests import HostEvent
from ._instance import Instance
from ._library import LIMITS, CreateOptions, Library, load
from ._library_for import find_library_for
from ._native import ABI_VERSION, LIBRARY_ENV, Buffer, candidate_paths, find_library, library_file_name
from ._subscriptions import Subscription
from ._text import JSON
from ._time_travel import History, HistoryEntry
from .errors import (
                     AbiVersionError,
                     BusyError,
                     FusionError,
                     InstanceFailedError,
                     InternalError,
                     InvalidArgumentError,
                     InvalidHandleError,
                     InvalidInputError,
                     InvalidResponseError,
                     InvalidStateError,
                     InvalidUTF8Error,
                     JournalError,
                     LibraryLoadError,
                     LimitExceededError,
                     MalformedJSONError,
                     MissingFunctionError,
                     NullArgumentError,
                     PatchError,
                     PluginLimitError,
                     PluginTrappedError,
                     UnknownFeatureError,
                     UnknownInputError,
                     UnknownRequestError,
                     UnknownSubscriptionError,
                     UnsettledError,
)
from .journal import JournalWarning
from .manifest import (
                       FeatureSpec,
                       FeatureSummary,
                       InputCase,
                       InputField,
                       LibraryInfo,
                       Manifest,
                       ManifestSummary,
                       Setting,
)
from .patch import apply_patch

__version__ = "0.1.0"

__all__ = [
    "ABI_VERSION", "LIBRARY_ENV", "JSON", "load", "find_library", "candidate_paths", "find_library_for",
    "library_file_name", "Buffer",
    "Library", "CreateOptions", "Instance", "Subscription", "HostEvent", "History", "HistoryEntry",
    "Manifest", "ManifestSummary", "LibraryInfo", "FeatureSpec", "FeatureSummary", "InputCase", "InputField", "Setting",
    "FusionError", "LibraryLoadError", "AbiVersionError", "MissingFunctionError",
    "NullArgumentError", "InvalidHandleError", "InvalidUTF8Error", "MalformedJSONError", "UnknownFeatureError",
    "UnknownInputError", "InvalidInputError", "InvalidStateError", "InvalidArgumentError",
    "UnknownSubscriptionError", "InternalError", "UnknownRequestError", "InvalidResponseError",
    "LimitExceededError", "UnsettledError", "BusyError", "PluginTrappedError", "PluginLimitError",
    "InstanceFailedError", "LIMITS", "JournalError", "JournalWarning",
    "PatchError", "apply_patch",
]
