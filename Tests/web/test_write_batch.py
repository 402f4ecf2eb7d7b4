"""An input's answer leaves the bridge in one system call (docs/web.md, "Threads"): on a
bridge that handles messages on its event loops, the change and the `ok` the reader writes
for one message are flushed together. Counted in the bridge's own /proc/PID/io (`syscw`,
the write calls it made; a bridge with no journal writes nothing else meanwhile)."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bridge import Server

INPUTS = 50


def write_calls(server: Server) -> int:
    for line in Path(f"/proc/{server.process.pid}/io").read_text().splitlines():
        if line.startswith("syscw:"):
            return int(line.split()[1])
    raise AssertionError("no syscw")


def test_an_inputs_change_and_its_ok_leave_in_one_write(serve: Callable[..., Server]) -> None:
    server = serve()
    with server.connect() as client:
        instance, _ = client.create("counter")
        client.drain(0.2)
        before = write_calls(server)
        for _ in range(INPUTS):
            reply, before_reply = client.call(type="send", instance=instance, input="increase")
            assert reply["type"] == "ok", reply
            assert [m["type"] for m in before_reply] == ["state"], before_reply
        made = write_calls(server) - before
    # Two frames an input, one call for both: a few to spare for anything else the bridge
    # writes meanwhile, none near the two calls an input of each frame flushed alone.
    assert made <= INPUTS + 5, made


def test_answers_larger_than_a_batch_holds_back_arrive_whole_and_in_order(serve: Callable[..., Server]) -> None:
    # Each change is over WriteBatchHandler.maxHeldBytes (16 KiB): flushed as it goes.
    server = serve()
    with server.connect() as client:
        answer, _ = client.create("answer")
        for letter in "xyz":
            text = letter * 20_000
            reply, before_reply = client.call(type="send", instance=answer, input={"answerChanged": {"text": text}})
            assert reply["type"] == "ok", reply
            assert [m["type"] for m in before_reply] in (["patch"], ["state"]), before_reply
            assert text in json.dumps(before_reply[0]), [len(json.dumps(m)) for m in before_reply]
