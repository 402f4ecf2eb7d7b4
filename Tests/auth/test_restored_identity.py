"""Who is signed in comes from the bridge's user, never from the page (issue 42, item 9):
a page that restores a state (`options.state`) naming someone else still sees the user
its token says, as Profile's `signedInAs` is a derived value recomputed on every
restore; a token whose `name` claim is empty shows its subject."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from bridge import Client, Server
from conftest import Keys, auth_flags


@pytest.fixture
def hs_server(serve: Callable[..., Server], keys: Keys) -> Server:
    return serve(*auth_flags(keys))


def test_a_restored_state_cannot_name_another_user(hs_server: Server, hs256: Callable[..., str]) -> None:
    forged = {"pending": [], "isLoading": False, "signedInAs": "Admin"}
    with Client(hs_server.ws_url, token=hs256("alice")) as client:
        _, state = client.create("profile", options={"state": forged})
        assert state["state"]["signedInAs"] == "Alice Example"
        # Left out, it is there all the same.
        _, state = client.create("profile", options={"state": {"pending": []}})
        assert state["state"]["signedInAs"] == "Alice Example"


def test_an_empty_name_claim_shows_the_subject(hs_server: Server, hs256: Callable[..., str]) -> None:
    with Client(hs_server.ws_url, token=hs256("bob", name="")) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "bob"
        _, state = client.create("profile", options={"state": {"pending": [], "signedInAs": ""}})
        assert state["state"]["signedInAs"] == "bob"
