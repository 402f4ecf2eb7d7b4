"""fk_limit through the package: Library.limit reads and sets each limit, and going past
one raises LimitExceededError with the library's message. Limits hold for the whole
library, so each test puts back what it changed."""
from __future__ import annotations

import fusionkit
import pytest


def test_defaults_and_setting(lib: fusionkit.Library) -> None:
    assert "fk_limit" in lib.optional_functions
    assert {name: lib.limit(name) for name in fusionkit.LIMITS} == {
        "length": 16 * 1024 * 1024, "json_depth": 512, "subscribers": 1024, "host_requests": 1024,
        "instances": 100000}
    assert lib.limit("subscribers", 5) == 1024
    try:
        assert lib.limit(fusionkit.LIMITS["subscribers"]) == 5
    finally:
        assert lib.limit("subscribers", 1024) == 5
    with pytest.raises(ValueError, match="unknown limit"):
        lib.limit("speed")
    with pytest.raises(ValueError, match="no limit number 42"):
        lib.limit(42)
    with pytest.raises(ValueError, match="0 or more"):
        lib.limit("length", -1)


def test_going_past_a_limit_raises_and_changes_nothing(lib: fusionkit.Library) -> None:
    with lib.create("counter") as counter:
        counter.send("increase")
        old = lib.limit("length", 16)
        try:
            with pytest.raises(fusionkit.LimitExceededError, match="FK_LIMIT_LENGTH") as caught:
                counter.send({"increase": {}, "padding": "x" * 20})
            assert caught.value.code == 14 and caught.value.status == "FK_ERR_LIMIT_EXCEEDED"
        finally:
            lib.limit("length", old)
        assert counter.version == 1 and counter.state["value"] == 1
