"""A FusionKit WebAssembly module, run by node (wasm_host.mjs, over bindings/web/fusionkit/wasm.js),
behind the calls fusionkit's scenario runner makes on a library and its instances, so that
one runner drives the native library and the module alike."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "bindings" / "python"))
from fusionkit import HostEvent  # noqa: E402
from fusionkit.errors import error_for_status  # noqa: E402


class WasmLibrary:
    def __init__(self, module: Path) -> None:
        self.process = subprocess.Popen(["node", str(HERE / "wasm_host.mjs"), str(module)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def call(self, **request: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the wasm host ended (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            error = answer["error"]
            raise error_for_status(error["code"], error["status"], error["message"])
        return answer

    @property
    def feature_names(self) -> list[str]:
        return list(self.call(op="features")["features"])

    def manifest_json(self) -> str:
        """The module's manifest, as the text fk_manifest wrote."""
        return str(self.call(op="manifest")["manifest"])

    def create(self, feature: str, options: dict[str, Any] | None = None) -> WasmInstance:
        return WasmInstance(self, int(self.call(op="create", feature=feature, options=options)["handle"]))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


class WasmInstance:
    def __init__(self, library: WasmLibrary, handle: int) -> None:
        self.library = library
        self.handle = handle

    def send_json(self, text: str) -> None:
        self.library.call(op="send", handle=self.handle, input=text)

    def state_json(self) -> tuple[str, int]:
        answer = self.library.call(op="state", handle=self.handle)
        return str(answer["state"]), int(answer["version"])

    def snapshot(self) -> tuple[Any, int]:
        text, version = self.state_json()
        return json.loads(text), version

    def state_patch(self, since_version: int) -> dict[str, Any]:
        return dict(self.library.call(op="patch", handle=self.handle, version=since_version)["patch"])

    def advance_clock(self, seconds: float = 0.0) -> None:
        self.library.call(op="advance", handle=self.handle, nanoseconds=round(seconds * 1_000_000_000))

    def pending(self) -> tuple[int, int]:
        answer = self.library.call(op="pending", handle=self.handle)
        return int(answer["effects"]), int(answer["requests"])

    def poll_request(self) -> HostEvent | None:
        event = self.library.call(op="poll", handle=self.handle)["event"]
        return None if event is None else HostEvent.from_json(json.dumps(event))

    def respond(self, request_id: int, result: Any) -> None:
        self.library.call(op="respond", handle=self.handle, id=request_id, result=json.dumps(result, ensure_ascii=False))

    def fail_request(self, request_id: int, message: str) -> None:
        self.library.call(op="fail", handle=self.handle, id=request_id, message=message)

    def goto(self, version: int) -> int:
        return int(self.library.call(op="goto", handle=self.handle, version=version)["version"])

    def history(self) -> Any:
        return self.library.call(op="history", handle=self.handle)["history"]

    def close(self) -> None:
        self.library.call(op="destroy", handle=self.handle)
