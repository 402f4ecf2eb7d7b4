"""Loading: by path, the default search, the ABI check before any other call, and
libraries that cannot be used; the prototypes of every function of the header."""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import fusionkit
import pytest
from fusionkit import _native

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "bindings" / "python"

# Every function but fk_abi_version aborts: if the package called any of them before
# checking the version, the process would die instead of raising.
ABI_999 = r'''
#include <stdlib.h>
#include "fusionkit.h"
uint32_t fk_abi_version(void) { return 999; }
const char *fk_library_version(void) { abort(); }
const char *fk_status_name(fk_status status) { (void)status; abort(); }
const char *fk_last_error_message(void) { abort(); }
fk_status fk_manifest(char **out_json, size_t *out_len) { (void)out_json; (void)out_len; abort(); }
void fk_free(void *memory) { (void)memory; abort(); }
fk_status fk_create(const char *f, size_t fl, const char *s, size_t sl, fk_instance *out) {
    (void)f; (void)fl; (void)s; (void)sl; (void)out; abort();
}
'''

# A library of the ABI's first version: the functions every library has, none of those
# added later (options, clock, host requests, patches). Hand-written, as FusionHost's
# tests do, to see the package load it and name what it lacks.
FIRST_VERSION = r'''
#include <stdlib.h>
#include <string.h>
#include "fusionkit.h"
static const char *last = "";
uint32_t fk_abi_version(void) { return 1; }
const char *fk_library_version(void) { return "0.0.1"; }
const char *fk_status_name(fk_status s) { return s == 0 ? "FK_OK" : s == 5 ? "FK_ERR_UNKNOWN_FEATURE" : "FK_ERR_INVALID_HANDLE"; }
const char *fk_last_error_message(void) { return last; }
fk_status fk_manifest(char **out, size_t *len) {
    static const char m[] = "{\"abiVersion\":1,\"library\":{\"name\":\"Old\",\"version\":\"0.0.1\"},\"features\":[]}";
    if (!out) return FK_ERR_NULL_ARGUMENT;
    *out = malloc(sizeof m); memcpy(*out, m, sizeof m);
    if (len) *len = sizeof m - 1;
    last = ""; return FK_OK;
}
void fk_free(void *p) { free(p); }
fk_status fk_create(const char *f, size_t fl, const char *s, size_t sl, fk_instance *out) {
    (void)f; (void)fl; (void)s; (void)sl; (void)out;
    last = "unknown feature; this library has none"; return FK_ERR_UNKNOWN_FEATURE;
}
fk_status fk_destroy(fk_instance i) { return i == 0 ? FK_OK : FK_ERR_INVALID_HANDLE; }
fk_status fk_send(fk_instance i, const char *j, size_t l) { (void)i; (void)j; (void)l; return FK_ERR_INVALID_HANDLE; }
fk_status fk_state(fk_instance i, char **j, size_t *l, uint64_t *v) { (void)i; (void)j; (void)l; (void)v; return FK_ERR_INVALID_HANDLE; }
fk_status fk_version(fk_instance i, uint64_t *v) { (void)i; (void)v; return FK_ERR_INVALID_HANDLE; }
fk_status fk_subscribe(fk_instance i, fk_change_fn c, void *u, uint64_t *s) { (void)i; (void)c; (void)u; (void)s; return FK_ERR_INVALID_HANDLE; }
fk_status fk_unsubscribe(fk_instance i, uint64_t s) { (void)i; (void)s; return FK_ERR_INVALID_HANDLE; }
'''


def run_python(code: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def test_load_by_path(lib: fusionkit.Library, library_path: Path) -> None:
    assert lib.path == library_path.absolute()
    assert lib.abi_version == fusionkit.ABI_VERSION == 1
    assert lib.version == "0.1.0"
    assert lib.features == ("counter", "answer", "home", "wifi", "profile")
    assert "libFusionExamples.so" in repr(lib)


def test_manifest_as_python_data(lib: fusionkit.Library) -> None:
    manifest = lib.manifest
    assert isinstance(manifest, fusionkit.Manifest)
    assert manifest.abi_version == 1
    assert manifest.library == fusionkit.LibraryInfo(name="FusionExamples", version="0.1.0")
    counter = manifest.feature("counter")
    assert [case.name for case in counter.inputs] == ["increase", "decrease", "reset", "show", "alertDismissed"]
    assert counter.state_fields == ("value", "isReset", "alert")
    assert counter.state_schema["properties"]["value"] == {"type": "integer"}
    assert "oneOf" in counter.input_schema
    wifi = manifest.feature("wifi")
    tapped = wifi.input("networkTapped")
    assert tapped.fields == (fusionkit.InputField(name="id", type="string", required=True, schema={"type": "string"}),)
    assert tapped.signature() == "networkTapped(id: string)"
    assert wifi.input("joinButtonTapped").signature() == "joinButtonTapped"
    assert [(setting.name, setting.type) for setting in wifi.settings] == [("liveScan", "boolean")]
    assert counter.settings == ()
    with pytest.raises(KeyError, match="no feature 'teleporter'; this library has: counter, answer"):
        manifest.feature("teleporter")
    with pytest.raises(KeyError, match="alertDismissed"):
        counter.input("jump")
    assert manifest.raw["features"][0]["name"] == "counter"
    # The text the library wrote, read with its length and freed by the library.
    assert fusionkit.Manifest.from_json(lib.manifest_json()) == manifest


def test_summary_at_load_and_each_feature_on_first_use(library_path: Path) -> None:
    """Loading reads nothing; `features` and `summary` read fk_manifest_summary (no feature
    described); `feature(name)` reads that feature alone, once; both agree with the whole
    manifest."""
    lib = fusionkit.Library(library_path)
    calls: list[str] = []
    for name in ("fk_manifest", "fk_manifest_summary", "fk_feature_manifest"):
        real = getattr(lib.c, name)

        def counting(*args: object, _real: object = real, _name: str = name) -> object:
            calls.append(_name)
            return _real(*args)  # type: ignore[operator]

        setattr(lib.c, name, counting)
    assert lib.features == ("counter", "answer", "home", "wifi", "profile")
    summary = lib.summary
    assert isinstance(summary, fusionkit.ManifestSummary)
    assert summary.library == fusionkit.LibraryInfo(name="FusionExamples", version="0.1.0")
    assert summary.feature("counter") == fusionkit.FeatureSummary("counter", summary.feature("counter").summary, 1)
    with pytest.raises(KeyError, match="no feature 'teleporter'; this library has: counter, answer"):
        lib.feature("teleporter")
    wifi = lib.feature("wifi")
    assert lib.feature("wifi") is wifi
    assert calls == ["fk_manifest_summary", "fk_feature_manifest"]
    assert wifi == lib.manifest.feature("wifi")
    assert [lib.feature(name) for name in lib.features] == list(lib.manifest.features)
    assert calls == ["fk_manifest_summary", "fk_feature_manifest", "fk_manifest"]
    assert tuple(f.state_version for f in summary.features) == tuple(f.state_version for f in lib.manifest.features)


def test_environment_variable_comes_first(monkeypatch: pytest.MonkeyPatch, library_path: Path) -> None:
    monkeypatch.setenv("FUSIONKIT_LIBRARY", str(library_path))
    assert fusionkit.find_library() == library_path
    assert fusionkit.load().path == library_path.absolute()
    monkeypatch.setenv("FUSIONKIT_LIBRARY", "/nowhere/libMissing.so")
    # A wrong setting is an error, not a reason to load something else.
    with pytest.raises(fusionkit.LibraryLoadError, match="no library at /nowhere/libMissing.so"):
        fusionkit.load()


def test_default_search_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FUSIONKIT_LIBRARY", raising=False)
    candidates = fusionkit.candidate_paths()
    bundled = PACKAGE_DIR / "fusionkit" / "_lib" / "libFusionExamples.so"
    assert candidates[:3] == [bundled, ROOT / ".build/release/libFusionExamples.so",
                              ROOT / ".build/debug/libFusionExamples.so"]
    found = fusionkit.find_library()
    assert found == next(path for path in candidates if path.is_file())
    assert fusionkit.load().path == found.absolute()


def test_nothing_found_says_where_it_looked_and_how_to_build(tmp_path: Path, clean_env: Callable[..., dict[str, str]]
                                                             ) -> None:
    # The package copied out of the checkout, run from a folder outside it: nowhere to look.
    shutil.copytree(PACKAGE_DIR / "fusionkit", tmp_path / "pkg" / "fusionkit",
                    ignore=shutil.ignore_patterns("_lib", "__pycache__"))
    result = run_python(f"import sys; sys.path.insert(0, {str(tmp_path / 'pkg')!r}); import fusionkit; fusionkit.load()",
                        clean_env(), cwd=tmp_path)
    assert result.returncode == 1
    assert "fusionkit.errors.LibraryLoadError: no FusionKit library found; looked in:" in result.stderr
    assert str(tmp_path / "pkg/fusionkit/_lib/libFusionExamples.so") in result.stderr
    assert "swift build --product FusionExamples" in result.stderr and "$FUSIONKIT_LIBRARY" in result.stderr


def test_a_file_that_is_not_a_library(tmp_path: Path) -> None:
    bogus = tmp_path / "libBogus.so"
    bogus.write_text("not an ELF file")
    with pytest.raises(fusionkit.LibraryLoadError, match="cannot load .*libBogus.so"):
        fusionkit.load(bogus)
    with pytest.raises(fusionkit.LibraryLoadError, match="no library at"):
        fusionkit.load(tmp_path / "libAbsent.so")


def test_a_library_without_fk_abi_version(build_c_library: Callable[[str, str], Path]) -> None:
    path = build_c_library("notfusion", "int not_fusionkit(void) { return 1; }\n")
    with pytest.raises(fusionkit.LibraryLoadError, match="not a FusionKit library: it exports no fk_abi_version"):
        fusionkit.load(path)


def test_abi_mismatch_is_refused_before_any_other_call(build_c_library: Callable[[str, str], Path],
                                                       clean_env: Callable[..., dict[str, str]]) -> None:
    path = build_c_library("abi999", ABI_999)
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE_DIR)!r}); import fusionkit\n"
            f"try:\n    fusionkit.load({str(path)!r})\n"
            "except fusionkit.AbiVersionError as e:\n"
            "    print(type(e).__name__, e.found, e.expected, isinstance(e, fusionkit.LibraryLoadError)); print(e)\n")
    result = run_python(code, clean_env())
    # A call to anything but fk_abi_version would have aborted (returncode -6).
    assert result.returncode == 0, result.stderr
    first, message = result.stdout.splitlines()
    assert first == "AbiVersionError 999 1 True"
    assert "speaks FusionKit ABI version 999" in message and "this fusionkit package speaks ABI version 1" in message
    assert str(path) in message


def test_a_library_lacking_a_required_function(build_c_library: Callable[[str, str], Path]) -> None:
    path = build_c_library("onlyabi", '#include "fusionkit.h"\nuint32_t fk_abi_version(void) { return 1; }\n')
    with pytest.raises(fusionkit.LibraryLoadError, match="lacks fk_library_version, which every FusionKit library"):
        fusionkit.load(path)


def test_a_first_version_library_loads_and_names_what_it_lacks(build_c_library: Callable[[str, str], Path]) -> None:
    old = fusionkit.load(build_c_library("firstversion", FIRST_VERSION))
    assert old.version == "0.0.1" and old.features == ()  # the summary from fk_manifest
    assert old.summary.library.version == "0.0.1"
    with pytest.raises(KeyError, match="no feature 'counter'"):
        old.feature("counter")
    with pytest.raises(fusionkit.UnknownFeatureError, match="this library has none"):
        old.create("counter")
    with pytest.raises(fusionkit.MissingFunctionError, match="lacks fk_create_with_options"):
        old.create("counter", clock="manual")


def header_declarations() -> dict[str, int]:
    """fk_ function name -> number of parameters, from include/fusionkit.h."""
    code = re.sub(r"/\*.*?\*/", "", (ROOT / "include/fusionkit.h").read_text(), flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    declared: dict[str, int] = {}
    for name, params in re.findall(r"\b(fk_[a-z0-9_]+)\s*\(([^;{]*?)\)\s*;", code):
        params = " ".join(params.split())
        declared[name] = 0 if params in ("", "void") else params.count(",") + 1
    return declared


def test_every_header_function_has_its_prototype(lib: fusionkit.Library) -> None:
    declared = header_declarations()
    assert len(declared) == 32, declared
    assert set(_native.PROTOTYPES) == set(declared)
    for name, arity in declared.items():
        restype, argtypes, _required = _native.PROTOTYPES[name]
        assert len(argtypes) == arity, name
        function = getattr(lib.c, name)
        assert function.argtypes == argtypes, name
        assert function.restype is restype, name
    # Only the borrowed strings are c_char_p returns (ctypes copies them, nobody frees them);
    # owned text arrives through char ** out-parameters, which the package frees with fk_free.
    returning_c_char_p = {name for name, (restype, _, _) in _native.PROTOTYPES.items() if restype is ctypes.c_char_p}
    assert returning_c_char_p == {"fk_library_version", "fk_status_name", "fk_last_error_message"}
    owned_out = {name for name, (_, argtypes, _) in _native.PROTOTYPES.items()
                 if ctypes.POINTER(ctypes.c_char_p) in argtypes}
    assert owned_out == {"fk_manifest", "fk_manifest_summary", "fk_feature_manifest", "fk_state", "fk_state_patch",
                         "fk_poll_request", "fk_history", "fk_checkpoint"}
