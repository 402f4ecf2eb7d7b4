"""Writes the seed corpus of the fuzz targets (Tests/fuzz/corpus/<target>/seed-*): valid
and nearly valid inputs of each kind, so that fuzzing starts deep inside each feature
instead of rediscovering JSON. Run from the repository root after
`swift build --product FusionExamples`; the seeds are committed, this only regenerates
them. Beside them: the corpus the fuzzers grew (files named by their SHA-1), merged in
with `fuzz-TARGET -merge=1 Tests/fuzz/corpus/TARGET .build-fuzz/corpus/TARGET` so that a
fresh clone's fuzzing starts where earlier runs got to, and inputs that once found a
bug, as crash-* files."""
from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "Tests/fuzz/corpus"
FEATURES = ["counter", "answer", "home", "wifi", "profile"]  # fuzz_common.h's order

INPUTS = {
    "counter": ['"increase"', '{"increase":{}}', '"decrease"', '"show"', '"alertDismissed"', '"reset"', '"jump"',
                '{"increase":1}'],
    "answer": ['{"answerChanged":{"text":"hi"}}', '"submitTapped"', '"resultDismissed"', '{"answerChanged":{}}',
               '{"answerChanged":{"text":7}}'],
    "home": ['"viewDidLoad"', '"tap1"', '"tap2"', '{"tap1":{"x":1}}'],
    "wifi": ['{"wifiToggled":{"isOn":false}}', '{"networkTapped":{"id":"blob"}}',
             '{"passwordChanged":{"password":"blob"}}', '"joinButtonTapped"', '{"infoButtonTapped":{"id":"blob"}}',
             '"forgetNetworkButtonTapped"', '"confirmForgetNetworkButtonTapped"', '"screenAppeared"',
             '"screenDisappeared"', '"destinationDismissed"', '"incorrectPasswordAlertDismissed"',
             '"forgetAlertDismissed"', '{"networkTapped":{"id":"nope"}}'],
    "profile": ['"loadAllProfiles"', '"retryTapped"', '"errorDismissed"'],
}

ANSWERS = [
    '{"name":"Dubu","species":"cat","age":4}',
    '{"members":[{"name":"Yuna","relation":"mother"}]}',
    '{"name":"Maple","className":"Owls","teacher":"Mr. Seo"}',
    '{"name":"Haneul","birthDate":"2024-02-29","heightCm":84,"weightKg":11.2}',
]


def initial_states(library: Path) -> dict[str, str]:
    lib = ctypes.CDLL(str(library))
    lib.fk_create.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                              ctypes.POINTER(ctypes.c_uint64)]
    lib.fk_state.argtypes = [ctypes.c_uint64, ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_void_p]
    lib.fk_destroy.argtypes = [ctypes.c_uint64]
    states = {}
    for name in FEATURES:
        handle = ctypes.c_uint64()
        assert lib.fk_create(name.encode(), len(name), None, 0, ctypes.byref(handle)) == 0
        text = ctypes.c_char_p()
        assert lib.fk_state(handle, ctypes.byref(text), None, None) == 0
        states[name] = text.value.decode()
        lib.fk_destroy(handle)
    return states


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed-{name}").write_bytes(data)


def main() -> None:
    library = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build/debug/libFusionExamples.so"
    states = initial_states(library)
    for index, feature in enumerate(FEATURES):
        # Then back in time: a chunk of byte 1 and a count is fk_goto (fuzz_send.c).
        inputs = b"\0".join([text.encode() for text in INPUTS[feature]] + [b"\x01\x02", INPUTS[feature][0].encode(), b"\x01\x05"])
        write("send", feature, bytes([index]) + inputs)
        write("send", f"{feature}-nul", bytes([index | 8]) + inputs)
        state = states[feature]
        write("create", f"{feature}-state", bytes([index]) + state.encode())
        write("create", f"{feature}-state-nul", bytes([index | 16]) + state.encode())
        options = {"state": json.loads(state), "seed": 3, "clock": "manual", "requests": "host"}
        if feature == "wifi":
            options["settings"] = {"liveScan": False}
        write("create", f"{feature}-options", bytes([index | 8]) + json.dumps(options, separators=(",", ":")).encode())
        write("create", f"{feature}-options-small", bytes([index | 8]) + b'{"seed":18446744073709551615,"clock":"system"}')
    respond = [f"0{pick}{answer}" for pick, answer in enumerate(ANSWERS)]
    write("respond", "all-answered", "\0".join(respond).encode())
    write("respond", "one-fails", "\0".join([respond[0], "11the server is down", "30\"retryTapped\"", respond[2]]).encode())
    write("respond", "wrong-shapes", "\0".join(["00{\"name\":1}", "01[]", "02", "03{\"members\":null}"]).encode())
    write("respond", "others", "\0".join(["2012345678", "50", "49", "30\"errorDismissed\"", "00" + ANSWERS[0]]).encode())
    json_seeds = ['{"a":[1,2.5,-3e10,true,false,null,"x\\u00e9\\ud83d\\ude00\\n"]}', '[[[[[]]]]]', '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
                  '-0.0', '123456789012345678901234567890', '{"":{}}', ' \t\n"é😀" ']
    for position, text in enumerate(json_seeds):
        write("json_parser", str(position), text.encode())
    manifest = library_manifest(library)
    write("manifest", "examples", manifest)
    write("manifest", "minimal", b'{"abiVersion":1,"library":{"name":"x","version":"1"},"features":[]}')
    write("manifest", "one-feature", b'{"abiVersion":1,"library":{"name":"x","version":"1"},"optionalFunctions":["fk_limit"],'
                                     b'"features":[{"name":"f","inputs":[{"name":"go","fields":[{"name":"n","type":"integer",'
                                     b'"required":false}]}],"stateSchema":{}}]}')


def library_manifest(library: Path) -> bytes:
    lib = ctypes.CDLL(str(library))
    text = ctypes.c_char_p()
    lib.fk_manifest.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p]
    assert lib.fk_manifest(ctypes.byref(text), None) == 0
    return text.value


if __name__ == "__main__":
    main()
