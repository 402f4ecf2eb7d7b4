"""The C ABI as a C programmer uses it: programs compiled against include/fusionkit.h,
linked with libFusionExamples.so, run, and run again under valgrind."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import INCLUDE, ROOT, SANITIZER, clean_env, plain_build_only, valgrind

EXAMPLE = ROOT / "examples/c/counter.c"
BAD_INPUTS = ROOT / "Tests/abi/c/bad_inputs.c"
THREADS = ROOT / "Tests/abi/c/threads.c"
DESTROY_RACE = ROOT / "Tests/abi/c/destroy_race.c"
HOST_REQUESTS = ROOT / "Tests/abi/c/host_requests.c"
STATE_BUFFERS = ROOT / "Tests/abi/c/state_buffers.c"
TIME_TRAVEL = ROOT / "Tests/abi/c/time_travel.c"
LIMITS = ROOT / "Tests/abi/c/limits.c"
SOAK = ROOT / "Tests/abi/c/soak.c"
MANIFESTS = ROOT / "Tests/abi/c/manifests.c"
JSON_REFUSALS = ROOT / "Tests/abi/c/json_refusals.c"
FAULTS = ROOT / "Tests/abi/c/faults.c"
SANDBOX_FAULTS = ROOT / "Tests/abi/c/sandbox_faults.c"
FUZZ = ROOT / "Tests/fuzz"
WIFI_EXAMPLE = ROOT / "examples/c/wifi_connect.c"
PROFILE_EXAMPLE = ROOT / "examples/c/profile_host.c"


def run(exe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=clean_env(), timeout=120)


def test_counter_example_drives_the_counter(compile_c):
    result = run(compile_c(EXAMPLE))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert 'state v0: {"value":0,"isReset":false,"alert":null}' in out
    assert 'state v2: {"value":2,"isReset":false,"alert":null}' in out
    assert 'state v4: {"value":1,"isReset":false,"alert":"The value is 1."}' in out
    assert 'state v6: {"value":0,"isReset":true,"alert":null}' in out
    assert 'refused: FK_ERR_UNKNOWN_INPUT: unknown input "jump"' in out
    # Six changes while subscribed; the last input came after unsubscribing.
    assert "told about 6 changes, the last at version 6" in out
    assert 'state v7: {"value":1,"isReset":false,"alert":null}' in out


@plain_build_only
def test_counter_example_is_clean_under_valgrind(compile_c):
    result = valgrind(compile_c(EXAMPLE))
    assert result.returncode == 0, result.stderr[-4000:]
    assert "definitely lost: 0 bytes" in result.stderr or "no leaks are possible" in result.stderr
    assert "ERROR SUMMARY: 0 errors" in result.stderr


def test_wifi_example_joins_after_one_second(compile_c):
    result = run(compile_c(WIFI_EXAMPLE))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    after = [line for line in lines if line.startswith("after the join")]
    assert len(after) == 2
    assert after[0].endswith('"selectedNetworkID":null, connect screen, incorrect-password alert')
    assert after[1].endswith('"selectedNetworkID":"blob", no screen')
    joining = [line for line in lines if line.startswith("join with blob")]
    assert len(joining) == 1 and joining[0].endswith("connect screen, connecting, join disabled"), joining
    assert lines[-1] == "joined Blob's WiFi"


def test_profile_example_answers_the_four_requests_itself(compile_c):
    result = run(compile_c(PROFILE_EXAMPLE))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for kind in ("fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"):
        assert f'"kind":"{kind}"' in out
        assert f"answered {kind}" in out
    assert '"pet":{"name":"Dubu","species":"cat","age":4}' in out
    assert '"error":"Could not load the family profile: the server is down"' in out
    assert "cancelled requests: 3" in out


def test_host_requests_options_and_the_manual_clock(compile_c):
    result = run(compile_c(HOST_REQUESTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("passed, 0 failed")


def test_time_travel_history_and_goto(compile_c):
    result = run(compile_c(TIME_TRAVEL))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("passed, 0 failed")


@plain_build_only
@pytest.mark.parametrize("program", [HOST_REQUESTS, PROFILE_EXAMPLE, THREADS, TIME_TRAVEL], ids=lambda p: p.stem)
def test_effects_and_requests_are_clean_under_valgrind(compile_c, program: Path):
    result = valgrind(compile_c(program))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "ERROR SUMMARY: 0 errors" in result.stderr


def test_every_bad_input_gets_a_status_and_a_message(compile_c):
    result = run(compile_c(BAD_INPUTS))
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    passed = int(re.match(r"(\d+) passed, 0 failed", summary).group(1))
    assert passed >= 119


def test_parser_refuses_what_the_header_says_and_reads_the_rest(compile_c):
    # include/fusionkit.h, "What the parser refuses that RFC 8259 allows".
    result = run(compile_c(JSON_REFUSALS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "26 passed, 0 failed"


@plain_build_only
def test_bad_inputs_are_clean_under_valgrind(compile_c):
    result = valgrind(compile_c(BAD_INPUTS))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "ERROR SUMMARY: 0 errors" in result.stderr


def test_one_instance_from_several_threads(compile_c):
    result = run(compile_c(THREADS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("passed, 0 failed")


def test_calls_racing_a_destroy_complete_or_get_invalid_handle(compile_c):
    # fusionkit.h, fk_destroy. Not under valgrind: the race wants many rounds at speed
    # (under a sanitizer, fewer: each is slower, and the sanitizer watches each closely).
    result = run(compile_c(DESTROY_RACE), "200" if SANITIZER else "2000")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_limits_have_defaults_settings_and_refuse_with_a_status(compile_c):
    result = run(compile_c(LIMITS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed_count(result) >= 39


@pytest.mark.parametrize("fault", ["state-internal", "stray-effect", "none"])
def test_injected_faults_give_internal_and_unsettled(compile_c, fault: str):
    """FK_ERR_INTERNAL and FK_ERR_UNSETTLED from the real library, through
    FUSIONKIT_FAULT (include/fusionkit.h): faults.c asserts each status exactly."""
    env = clean_env()
    if fault != "none":
        env["FUSIONKIT_FAULT"] = fault
    result = subprocess.run([str(compile_c(FAULTS)), fault], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed_count(result) >= 3


def test_soak_many_threads_on_one_instance_then_flat_memory(compile_c):
    """Tests/abi/c/soak.c, shorter than in scripts/test-reliability (which runs a million
    inputs against the release build): 4 x 10000 inputs from four threads while others
    read, follow patches and subscribe, then destroy; 10000 cycles of host requests."""
    result = subprocess.run([str(compile_c(SOAK)), "10000", "10000", "300"], capture_output=True, text=True,
                            env=clean_env(), timeout=400)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert passed_count(result) == 13
    # docs/reliability.md shows a full-size run's output: the same lines in the same order,
    # but for the numbers.
    doc = (ROOT / "docs/reliability.md").read_text()
    shown = re.search(r"<!-- output of a run: Tests/abi/c/soak.c at full size;.*?-->\n```text\n(.*?)```", doc, re.S)
    assert shown, "docs/reliability.md has no soak output block"
    masked = lambda text: re.sub(r"\d+(\.\d+)?", "N", text).splitlines()  # noqa: E731
    assert masked(shown.group(1)) == masked(result.stdout)


@pytest.mark.parametrize("target", ["send", "create", "respond"])
def test_fuzz_corpus_replays_cleanly(compile_c, target: str):
    """Every committed input of a C fuzz target (its seeds, and each input that once
    found a bug) run once against this build: the fuzzers' regression tests."""
    exe = compile_c(FUZZ / f"fuzz_{target}.c", str(FUZZ / "replay_main.c"))
    inputs = sorted((FUZZ / "corpus" / target).iterdir())
    assert inputs
    result = run(exe, *map(str, inputs))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert result.stdout.strip() == f"replayed {len(inputs)} inputs"


def passed_count(result: subprocess.CompletedProcess[str]) -> int:
    summary = result.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"(\d+) passed, 0 failed", summary)
    assert match, summary
    return int(match.group(1))


def test_state_into_caller_buffers_and_handle_churn(compile_c):
    """fk_state_into and fk_send_and_read with buffers of every size, fk_send_and_read
    from two threads at once, and 10000 instances created and destroyed."""
    result = run(compile_c(STATE_BUFFERS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed_count(result) >= 64
    assert "churn: created 5000 counters" in result.stdout


@plain_build_only
def test_state_buffers_are_clean_under_valgrind(compile_c):
    # Fewer instances under valgrind (1000 per round instead of 5000), to stay quick;
    # exact-size buffers are malloc'd so that a write past their end is an error here.
    result = valgrind(compile_c(STATE_BUFFERS), "1000")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert passed_count(result) >= 64
    assert "churn: created 1000 counters" in result.stdout
    assert "ERROR SUMMARY: 0 errors" in result.stderr


def test_manifest_summary_and_each_feature_alone(compile_c):
    """fk_manifest_summary lists the features without describing them; fk_feature_manifest
    gives each feature's entry exactly as fk_manifest lists it."""
    result = run(compile_c(MANIFESTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed_count(result) >= 22


@plain_build_only
def test_manifests_are_clean_under_valgrind(compile_c):
    result = valgrind(compile_c(MANIFESTS))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "definitely lost: 0 bytes" in result.stderr or "no leaks are possible" in result.stderr
    assert "ERROR SUMMARY: 0 errors" in result.stderr


def declared_functions() -> set[str]:
    header = (INCLUDE / "fusionkit.h").read_text()
    # Declarations only: strip comments first so examples in them do not count.
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    return set(re.findall(r"\b(fk_[a-z0-9_]+)\s*\(", code)) - {"fk_change_fn"}


def test_header_declares_exactly_what_the_library_exports(library: Path):
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True, capture_output=True, text=True)
    exported = {line.split()[-1] for line in nm.stdout.splitlines() if line.split()[-1].startswith("fk_")}
    declared = declared_functions()
    assert declared, "no declarations found in the header"
    assert declared - exported == set(), "declared in the header but not exported"
    assert exported - declared == set(), "exported but not declared in the header"


def test_header_compiles_as_c11_and_cxx(tmp_path: Path):
    source = tmp_path / "h.c"
    source.write_text('#include "fusionkit.h"\nint main(void) { return FK_ABI_VERSION == 1 ? 0 : 1; }\n')
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{INCLUDE}", "-c", str(source),
                    "-o", str(tmp_path / "h.o")], check=True)
    cxx = tmp_path / "h.cpp"
    cxx.write_text('#include "fusionkit.h"\nint main() { fk_change_fn f = nullptr; (void)f; return FK_OK; }\n')
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", f"-I{INCLUDE}", "-c", str(cxx), "-o", str(tmp_path / "h2.o")],
                   check=True)


DLOPEN = r'''
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
int main(int argc, char **argv) {
    (void)argc;
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    uint32_t (*version)(void) = (uint32_t (*)(void))dlsym(lib, "fk_abi_version");
    if (!version) { fprintf(stderr, "no fk_abi_version\n"); return 1; }
    printf("abi %u\n", version());
    return 0;
}
'''


@plain_build_only
def test_loads_from_c_with_no_environment(library: Path, tmp_path: Path):
    source = tmp_path / "load.c"
    source.write_text(DLOPEN)
    exe = tmp_path / "load"
    subprocess.run(["cc", "-std=c11", str(source), "-ldl", "-o", str(exe)], check=True)
    result = subprocess.run([str(exe), str(library)], capture_output=True, text=True, env=clean_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "abi 1"


@plain_build_only
def test_loads_from_python_ctypes_with_no_environment(library: Path):
    code = (
        "import ctypes, sys\n"
        f"lib = ctypes.CDLL({str(library)!r})\n"
        "lib.fk_abi_version.restype = ctypes.c_uint32\n"
        "print('abi', lib.fk_abi_version())\n"
    )
    result = subprocess.run(["python3", "-c", code], capture_output=True, text=True, env=clean_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "abi 1"


@plain_build_only
def test_manifest_lists_the_optional_functions_the_header_names_and_the_library_exports(library: Path):
    header = (INCLUDE / "fusionkit.h").read_text()
    section = header.split("** Optional functions.")[1].split("**\n** ")[0]
    optional = set(re.findall(r"\b(fk_[a-z0-9_]+)\b", section))
    assert optional and optional <= declared_functions()
    manifest = json.loads(subprocess.run(
        ["python3", "-c", "import ctypes,sys\n"
         f"lib = ctypes.CDLL({str(library)!r})\n"
         "out = ctypes.c_char_p(); n = ctypes.c_size_t()\n"
         "lib.fk_manifest.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t)]\n"
         "assert lib.fk_manifest(ctypes.byref(out), ctypes.byref(n)) == 0\n"
         "sys.stdout.write(out.value.decode())"],
        check=True, capture_output=True, text=True).stdout)
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True, capture_output=True, text=True)
    exported = {line.split()[-1] for line in nm.stdout.splitlines()}
    assert set(manifest["optionalFunctions"]) == optional & exported


@plain_build_only  # the sandbox is not among the instrumented builds (FUSIONKIT_CORE_ONLY)
def test_a_sandboxed_plugins_faults_fail_one_call_each_in_a_c_program(compile_c, lib_dir: Path) -> None:
    """libFusionSandbox.so linked by a C program (include/fusionkit_sandbox.h): the faulty
    test plugin's trap, endless recursion, endless loop (200 ms limit) and memory hog
    (16 MiB cap) give FK_ERR_PLUGIN_TRAPPED or FK_ERR_PLUGIN_LIMIT, then
    FK_ERR_INSTANCE_FAILED, with the last good state kept and the other instance answering."""
    import sys
    sys.path.insert(0, str(ROOT / "Wasm"))
    import build as wasm_build
    if not (lib_dir / "libFusionSandbox.so").exists() or not os.environ.get("FUSION_BIN_DIR"):
        subprocess.run(["swift", "build", "--product", "FusionSandbox"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    module = wasm_build.build(lib_dir.parent / "wasm-faulty", [ROOT / "Tests/sandbox/Faulty/Faulty.swift",
                                                               ROOT / "Tests/sandbox/Faulty/Library.swift"], "Faulty")
    result = run(compile_c(SANDBOX_FAULTS, library="FusionSandbox"), str(module))
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"spin": FK_ERR_PLUGIN_LIMIT: the plugin ran past its time limit' in result.stdout
    assert '"hog": FK_ERR_PLUGIN_LIMIT: the plugin asked for' in result.stdout
    assert '"trap": FK_ERR_PLUGIN_TRAPPED' in result.stdout
