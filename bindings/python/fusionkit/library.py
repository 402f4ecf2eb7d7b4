"""The Python front end over the C ABI, by the module name it had before the package
was split into one concept per module: `Library` (_library.py) and `Instance`
(_instance.py), with subscriptions, the clock and time travel, and host requests.
Import these names from `fusionkit` itself; this module keeps older imports working.
"""
from __future__ import annotations

from ._callback_errors import CallbackErrors
from ._host_requests import HostEvent
from ._instance import Instance
from ._library import LIMITS, Library, load
from ._subscriptions import Subscription
from ._text import JSON
from ._time_travel import History, HistoryEntry

__all__ = ["load", "Library", "Instance", "Subscription", "HostEvent", "History", "HistoryEntry", "JSON", "LIMITS",
           "CallbackErrors"]
