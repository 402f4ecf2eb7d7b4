/// What a library says about itself (fk_manifest): its features, their input cases
/// with payload fields, and the shape of their state.
public struct Manifest: Sendable, Equatable {
    public var abiVersion: Int64
    public var libraryName: String
    public var libraryVersion: String
    public var features: [Feature]
    /// The optional functions of the header the library says it exports; nil for a
    /// library built before manifests said (`HostedLibrary.exports(_:)` always knows).
    public var optionalFunctions: [String]?
    /// The whole manifest as the library wrote it, for what this model leaves out.
    public var json: JSONValue

    public struct Feature: Sendable, Equatable {
        public var name: String
        public var summary: String
        public var inputs: [InputCase]
        /// The JSON Schema of the feature's state.
        public var stateSchema: JSONValue
        public var inputSchema: JSONValue?
        /// The version of the state's shape; nil for a library from before state versions
        /// (its states are version 1, and it does not know the "stateVersion" option).
        public var stateVersion: Int?
        /// The settings it reads from the creation option "settings"; none for a library
        /// from before features declared them.
        public var settings: [Setting] = []

        public func input(named name: String) -> InputCase? { inputs.first { $0.name == name } }
    }

    /// A setting a feature reads (the manifest's "settings"): its key, its JSON type
    /// ("boolean") and what it changes.
    public struct Setting: Sendable, Equatable {
        /// Its key in the option "settings".
        public var name: String
        /// The JSON its value is: "boolean".
        public var type: String
        /// What it changes ("" when the library does not say).
        public var summary: String
    }

    public struct InputCase: Sendable, Equatable {
        public var name: String
        public var fields: [Field]

        public func field(named name: String) -> Field? { fields.first { $0.name == name } }
    }

    public struct Field: Sendable, Equatable {
        public var name: String
        /// A short type name for people: "string", "integer", "[Network]", "string?".
        public var type: String
        public var required: Bool
        /// The field's JSON Schema, when the library gives one.
        public var schema: JSONValue?
    }

    public func feature(named name: String) -> Feature? { features.first { $0.name == name } }

    /// Reads a manifest, checking the parts this model needs and naming what is wrong.
    public init(json: JSONValue) throws(ManifestError) {
        let summary = try ManifestSummary(json: json)
        self.json = json
        abiVersion = summary.abiVersion
        libraryName = summary.libraryName
        libraryVersion = summary.libraryVersion
        optionalFunctions = summary.optionalFunctions
        let features = json["features"]?.elements ?? []
        self.features = try features.enumerated().map { (position, item) throws(ManifestError) -> Feature in
            try Feature(json: item, at: "features[\(position)]")
        }
    }

    /// The parts of the manifest a host reads at load, without the features' descriptions.
    public var summary: ManifestSummary {
        ManifestSummary(
            abiVersion: abiVersion, libraryName: libraryName, libraryVersion: libraryVersion,
            optionalFunctions: optionalFunctions,
            features: features.map { .init(name: $0.name, summary: $0.summary, stateVersion: $0.stateVersion) })
    }

    fileprivate static func inputCase(_ json: JSONValue, at path: String) throws(ManifestError) -> InputCase {
        let name = try require(json["name"]?.stringValue, "\(path).name", "a string")
        let fields = json["fields"]?.elements ?? []
        return InputCase(
            name: name,
            fields: try fields.enumerated().map { (position, item) throws(ManifestError) -> Field in
                let fieldPath = "\(path).fields[\(position)]"
                return Field(
                    name: try require(item["name"]?.stringValue, "\(fieldPath).name", "a string"),
                    type: item["type"]?.stringValue ?? "any",
                    required: item["required"]?.boolValue ?? true,
                    schema: item["schema"])
            })
    }

    private static func require<T>(_ value: T?, _ path: String, _ expected: String) throws(ManifestError) -> T {
        try ManifestError.require(value, path, expected)
    }
}

extension Manifest.Feature {
    /// A feature's entry: in the manifest's "features", or alone (fk_feature_manifest).
    public init(json: JSONValue, at path: String) throws(ManifestError) {
        let listed = try ManifestSummary.Feature(json: json, at: path)
        let inputs = try ManifestError.require(json["inputs"]?.elements, "\(path).inputs", "an array")
        self.init(
            name: listed.name,
            summary: listed.summary,
            inputs: try inputs.enumerated().map { (position, item) throws(ManifestError) -> Manifest.InputCase in
                try Manifest.inputCase(item, at: "\(path).inputs[\(position)]")
            },
            stateSchema: try ManifestError.require(json["stateSchema"], "\(path).stateSchema", "a JSON Schema"),
            inputSchema: json["inputSchema"],
            stateVersion: listed.stateVersion,
            settings: try (json["settings"]?.elements ?? []).enumerated().map { (position, item) throws(ManifestError) in
                let settingPath = "\(path).settings[\(position)]"
                return Manifest.Setting(
                    name: try ManifestError.require(item["name"]?.stringValue, "\(settingPath).name", "a string"),
                    type: item["type"]?.stringValue ?? "any",
                    summary: item["summary"]?.stringValue ?? "")
            })
    }
}
