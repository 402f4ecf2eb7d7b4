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

        public func input(named name: String) -> InputCase? { inputs.first { $0.name == name } }
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
        guard case .object = json else { throw ManifestError("expected an object, found \(json.kindDescription)") }
        self.json = json
        abiVersion = try Self.require(json["abiVersion"]?.integerValue.map(Int64.init), "abiVersion", "an integer")
        let library = json["library"]
        libraryName = try Self.require(library?["name"]?.stringValue, "library.name", "a string")
        libraryVersion = try Self.require(library?["version"]?.stringValue, "library.version", "a string")
        if let listed = json["optionalFunctions"] {
            let items = try Self.require(listed.elements, "optionalFunctions", "an array")
            optionalFunctions = try items.enumerated().map { (position, item) throws(ManifestError) -> String in
                try Self.require(item.stringValue, "optionalFunctions[\(position)]", "a string")
            }
        }
        let features = try Self.require(json["features"]?.elements, "features", "an array")
        self.features = try features.enumerated().map { (position, item) throws(ManifestError) -> Feature in
            try Self.feature(item, at: "features[\(position)]")
        }
    }

    private static func feature(_ json: JSONValue, at path: String) throws(ManifestError) -> Feature {
        let name = try require(json["name"]?.stringValue, "\(path).name", "a string")
        let inputs = try require(json["inputs"]?.elements, "\(path).inputs", "an array")
        return Feature(
            name: name,
            summary: json["summary"]?.stringValue ?? "",
            inputs: try inputs.enumerated().map { (position, item) throws(ManifestError) -> InputCase in
                try inputCase(item, at: "\(path).inputs[\(position)]")
            },
            stateSchema: try require(json["stateSchema"], "\(path).stateSchema", "a JSON Schema"),
            inputSchema: json["inputSchema"],
            stateVersion: try json["stateVersion"].map { (listed) throws(ManifestError) -> Int in
                let version = try require(listed.integerValue, "\(path).stateVersion", "a whole number from 1")
                guard version >= 1, version <= Int32.max else { throw ManifestError("\(path).stateVersion is not a whole number from 1") }
                return Int(version)
            })
    }

    private static func inputCase(_ json: JSONValue, at path: String) throws(ManifestError) -> InputCase {
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
        guard let value else { throw ManifestError("\(path) is missing or is not \(expected)") }
        return value
    }
}

/// Why a manifest could not be read.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
