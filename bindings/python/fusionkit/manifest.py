"""The manifest (fk_manifest) as Python data: the library, its features, each feature's
input cases with their fields, and the JSON Schemas of its inputs and state; and its
summary (fk_manifest_summary): the library and each feature's name, summary and state
version, which a library gives without describing any feature."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .errors import NotInManifestError

__all__ = ["Manifest", "ManifestSummary", "LibraryInfo", "FeatureSpec", "FeatureSummary", "InputCase", "InputField"]

#: JSON Schema documents stay plain dicts: they are for reading and for validators.
Schema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Setting:
    """A setting a feature reads from the option `settings` (the manifest's "settings"):
    `liveScan: boolean` of "wifi". Any other key is refused (InvalidArgumentError)."""
    name: str
    type: str
    summary: str = ""


@dataclass(frozen=True, slots=True)
class InputField:
    """A payload field of an input case: `text: string` of `answerChanged`."""
    name: str
    type: str
    required: bool
    schema: Schema = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class InputCase:
    """One input of a feature, e.g. `networkTapped(id: string)`."""
    name: str
    fields: tuple[InputField, ...] = ()

    def signature(self) -> str:
        """How the case reads in words: "networkTapped(id: string)" or "increase"."""
        if not self.fields:
            return self.name
        inner = ", ".join(f"{f.name}: {f.type}{'' if f.required else '?'}" for f in self.fields)
        return f"{self.name}({inner})"


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """A feature of the library: its name (what `Library.create` takes), its inputs and
    the shape of its state."""
    name: str
    summary: str
    inputs: tuple[InputCase, ...]
    input_schema: Schema
    state_schema: Schema
    #: The version of the state's shape (the manifest's "stateVersion"): saved states
    #: carry it, so that a later library migrates them or says why it cannot. 1 for a
    #: library from before state versions.
    state_version: int = 1
    #: The settings it reads (the manifest's "settings"); none for a library from before
    #: features declared them.
    settings: tuple[Setting, ...] = ()

    def input(self, name: str) -> InputCase:
        """The input case called `name`; KeyError lists the ones there are."""
        for case in self.inputs:
            if case.name == name:
                return case
        raise NotInManifestError(f"{self.name} has no input {name!r}; its inputs: {', '.join(c.name for c in self.inputs)}")

    @property
    def state_fields(self) -> tuple[str, ...]:
        """The state's field names, in the order the schema lists them."""
        properties = self.state_schema.get("properties", {})
        return tuple(properties) if isinstance(properties, dict) else ()


@dataclass(frozen=True, slots=True)
class LibraryInfo:
    name: str
    version: str


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_Feature = TypeVar("_Feature", bound=_Named)


class _FeatureList(Generic[_Feature]):
    """Finding a feature by name, for the manifest and its summary alike."""
    __slots__ = ()
    features: tuple[_Feature, ...]

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)

    def feature(self, name: str) -> _Feature:
        """The feature called `name`; KeyError lists the ones there are."""
        for listed in self.features:
            if listed.name == name:
                return listed
        raise NotInManifestError(f"no feature {name!r}; this library has: {', '.join(self.feature_names)}")


@dataclass(frozen=True, slots=True)
class Manifest(_FeatureList[FeatureSpec]):
    """What a library says about itself. `raw` keeps the whole document, so keys a
    newer library adds are not lost."""
    abi_version: int
    library: LibraryInfo
    features: tuple[FeatureSpec, ...]
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, text: str | bytes) -> Manifest:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        library = data.get("library", {})
        return cls(
            abi_version=int(data["abiVersion"]),
            library=LibraryInfo(name=str(library.get("name", "")), version=str(library.get("version", ""))),
            features=tuple(_feature(f) for f in data.get("features", [])),
            raw=data,
        )


def _feature(data: dict[str, Any]) -> FeatureSpec:
    return FeatureSpec(
        name=str(data["name"]),
        summary=str(data.get("summary", "")),
        inputs=tuple(
            InputCase(
                name=str(case["name"]),
                fields=tuple(
                    InputField(name=str(f["name"]), type=str(f.get("type", "")), required=bool(f.get("required", True)),
                               schema=dict(f.get("schema", {})))
                    for f in case.get("fields", [])
                ),
            )
            for case in data.get("inputs", [])
        ),
        input_schema=dict(data.get("inputSchema", {})),
        state_schema=dict(data.get("stateSchema", {})),
        state_version=int(data.get("stateVersion", 1)),
        settings=tuple(Setting(name=str(s["name"]), type=str(s.get("type", "")), summary=str(s.get("summary", "")))
                       for s in data.get("settings", [])),
    )


@dataclass(frozen=True, slots=True)
class FeatureSummary:
    """A feature as the summary lists it: no inputs or schemas (`Library.feature` has them)."""
    name: str
    summary: str
    state_version: int = 1


@dataclass(frozen=True, slots=True)
class ManifestSummary(_FeatureList[FeatureSummary]):
    """What a library says about itself without describing its features: read at load, so
    that loading costs no feature's description (see fk_manifest_summary in the header)."""
    abi_version: int
    library: LibraryInfo
    features: tuple[FeatureSummary, ...]

    @classmethod
    def from_json(cls, text: str | bytes) -> ManifestSummary:
        """From fk_manifest_summary's text, or a whole manifest's (it has the same parts)."""
        data = json.loads(text)
        library = data.get("library", {})
        return cls(
            abi_version=int(data["abiVersion"]),
            library=LibraryInfo(name=str(library.get("name", "")), version=str(library.get("version", ""))),
            features=tuple(FeatureSummary(name=str(f["name"]), summary=str(f.get("summary", "")),
                                          state_version=int(f.get("stateVersion", 1)))
                           for f in data.get("features", [])),
        )


def feature_from_json(text: str | bytes) -> FeatureSpec:
    """One feature's entry of the manifest (fk_feature_manifest's text)."""
    return _feature(json.loads(text))
