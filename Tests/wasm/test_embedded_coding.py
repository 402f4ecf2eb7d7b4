"""The coding layer under Embedded Swift (issue 37's first step): FusionJSON and FusionKit's
@JSONCoded coding, compiled for wasm32 with the toolchain's Embedded Swift and run in node,
answer byte for byte as the same sources built for the host do, on states shaped like the
examples' (coding_probe.swift), good and bad."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Wasm"))
from build import (  # noqa: E402
    CODING,
    EMBEDDED,
    MACROS,
    TOOLCHAIN,
    UNICODE_TABLES,
    WASI_INCLUDE,
    WASI_LIBC,
    compiler_builtins,
    missing,
    run,
)

HERE = Path(__file__).resolve().parent
SOURCES = [*CODING, HERE / "coding_probe.swift"]

STATION = '{"id":"blob","name":"Blob\'s WiFi","strength":0.9,"security":"WPA2","bars":3}'
#: (input, the answer expected from both builds).
VECTORS = [
    # Optionals may be left out; fields with a default may not (as with synthesized Codable).
    ('{"isOn":true,"stations":[],"counts":{}}', '{"isOn":true,"stations":[],"selected":null,"screen":null,"counts":{}}'),
    ('{}', 'error: missing field "isOn"'),
    ('{"isOn":false,"stations":[' + STATION + '],"selected":"blob","screen":{"detail":' + STATION + '},"counts":{"b":2,"a":1}}',
     '{"isOn":false,"stations":[' + STATION + '],"selected":"blob","screen":{"detail":' + STATION + '},"counts":{"a":1,"b":2}}'),
    # A derived field left out is read as empty; a number written as 1e0 comes back as 1.
    ('{"isOn":true,"counts":{},"stations":[{"id":"x","name":"Caf\\u00e9 \\"Guest\\"","strength":1e0,"security":"open"}],'
     '"screen":{"join":{"id":"x"}}}',
     '{"isOn":true,"stations":[{"id":"x","name":"Café \\"Guest\\"","strength":1,"security":"open","bars":0}],'
     '"selected":null,"screen":{"join":{"id":"x","password":null}},"counts":{}}'),
    ('{"isOn":true,"stations":[],"counts":{},"screen":"list"}',
     '{"isOn":true,"stations":[],"selected":null,"screen":{"list":{}},"counts":{}}'),
    ('{"isOn":true,"stations":[{"id":"x","name":7}]}', 'error: at $.stations[0].name: expected a string, found a number'),
    ('{"isOn":true,"stations":[{"id":"x","name":"n","strength":1}]}', 'error: at $.stations[0]: missing field "security"'),
    ('{"isOn":true,"stations":[{"id":"x","name":"n","strength":1,"security":"wep"}]}',
     'error: at $.stations[0].security: "wep" is not a Security; known: open, WPA2'),
    ('{"isOn":true,"stations":[],"screen":{"detail":{},"list":{}}}',
     "error: at $.screen: expected an object with one key, the case's name, found an object"),
    ('{"isOn":true,"stations":[],"screen":{"away":{}}}', 'error: at $.screen: unknown case "away" of Screen; known: list, detail, join'),
    ('{"isOn":true,"stations":[],"counts":{"a":1.5}}', 'error: at $.counts.a: expected an integer for Int, found 1.5'),
    # A whole number past 2^31 in a Double: the same digits where Int is 32 bits.
    ('{"isOn":true,"counts":{},"stations":[{"id":"x","name":"n","strength":3000000000,"security":"open"}]}',
     '{"isOn":true,"stations":[{"id":"x","name":"n","strength":3000000000,"security":"open","bars":0}],'
     '"selected":null,"screen":null,"counts":{}}'),
    ('[]', 'error: expected an object, found an array'),
    ('{"isOn":tru}', 'parse error'),
]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    assert not missing(), f"missing: {missing()} (swift build builds the macros; scripts/setup installs the rest)"
    out = tmp_path_factory.mktemp("wasm")
    run([str(TOOLCHAIN / "swiftc"), "-O", "-parse-as-library", "-module-name", "FusionKit", *MACROS, *map(str, SOURCES),
         str(HERE / "native_main.swift"), "-lm", "-o", str(out / "probe")])
    run([str(TOOLCHAIN / "swiftc"), *EMBEDDED, "-module-name", "FusionKit", *MACROS, *map(str, SOURCES), str(HERE / "wasm_entry.swift"), "-c", "-o", str(out / "probe.o")])
    run([str(TOOLCHAIN / "clang"), "--target=wasm32-wasi", "-isystem", str(WASI_INCLUDE), "-O2", "-c",
         str(ROOT / "Wasm/Runtime/strtod_shim.c"), "-o", str(out / "shim.o")])
    run([str(TOOLCHAIN / "wasm-ld"), "--no-entry", "--export=probe_alloc", "--export=probe_run", "--gc-sections",
         str(out / "probe.o"), str(out / "shim.o"), str(WASI_LIBC), str(UNICODE_TABLES), str(compiler_builtins()),
         "-o", str(out / "probe.wasm")])
    stdin = "".join(text + "\n" for text, _ in VECTORS)
    return {
        "host": run([str(out / "probe")], input=stdin).stdout.splitlines(),
        "wasm": run(["node", str(HERE / "run_probe.mjs"), str(out / "probe.wasm")], input=stdin).stdout.splitlines(),
    }


@pytest.mark.parametrize("build", ["host", "wasm"])
def test_each_build_answers_as_expected(builds: dict[str, list[str]], build: str) -> None:
    assert builds[build] == [expected for _, expected in VECTORS]


def test_both_builds_answer_byte_for_byte_alike(builds: dict[str, list[str]]) -> None:
    assert builds["wasm"] == builds["host"]
