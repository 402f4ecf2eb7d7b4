/// What a library says about itself without describing its features: its name and
/// version, the ABI version, its optional functions, and each feature's name, summary
/// and state version. Read at load from fk_manifest_summary, or from the whole manifest
/// of a library built before that function; a host asks for a feature's inputs and
/// schemas (`HostedLibrary.feature(named:)`) when it uses the feature.
public struct ManifestSummary: Sendable, Equatable {
    public var abiVersion: Int64
    public var libraryName: String
    public var libraryVersion: String
    /// The optional functions of the header the library says it exports; nil for a
    /// library built before manifests said (`HostedLibrary.exports(_:)` always knows).
    public var optionalFunctions: [String]?
    public var features: [Feature]

    public struct Feature: Sendable, Equatable {
        public var name: String
        public var summary: String
        /// The version of the state's shape; nil for a library from before state versions.
        public var stateVersion: Int?
    }

    public func feature(named name: String) -> Feature? { features.first { $0.name == name } }

    init(abiVersion: Int64, libraryName: String, libraryVersion: String, optionalFunctions: [String]?, features: [Feature]) {
        self.abiVersion = abiVersion
        self.libraryName = libraryName
        self.libraryVersion = libraryVersion
        self.optionalFunctions = optionalFunctions
        self.features = features
    }

    /// Reads the summary, or the same parts of a whole manifest, naming what is wrong.
    public init(json: JSONValue) throws(ManifestError) {
        guard case .object = json else { throw ManifestError("expected an object, found \(json.kindDescription)") }
        abiVersion = try ManifestError.require(json["abiVersion"]?.integerValue.map(Int64.init), "abiVersion", "an integer")
        let library = json["library"]
        libraryName = try ManifestError.require(library?["name"]?.stringValue, "library.name", "a string")
        libraryVersion = try ManifestError.require(library?["version"]?.stringValue, "library.version", "a string")
        if let listed = json["optionalFunctions"] {
            let items = try ManifestError.require(listed.elements, "optionalFunctions", "an array")
            optionalFunctions = try items.enumerated().map { (position, item) throws(ManifestError) -> String in
                try ManifestError.require(item.stringValue, "optionalFunctions[\(position)]", "a string")
            }
        }
        let features = try ManifestError.require(json["features"]?.elements, "features", "an array")
        self.features = try features.enumerated().map { (position, item) throws(ManifestError) -> Feature in
            try Feature(json: item, at: "features[\(position)]")
        }
    }
}

extension ManifestSummary.Feature {
    /// The name, summary and state version of a feature's entry (summary or whole).
    init(json: JSONValue, at path: String) throws(ManifestError) {
        name = try ManifestError.require(json["name"]?.stringValue, "\(path).name", "a string")
        summary = json["summary"]?.stringValue ?? ""
        stateVersion = try json["stateVersion"].map { (listed) throws(ManifestError) -> Int in
            let version = try ManifestError.require(listed.integerValue, "\(path).stateVersion", "a whole number from 1")
            guard version >= 1, version <= Int32.max else { throw ManifestError("\(path).stateVersion is not a whole number from 1") }
            return Int(version)
        }
    }
}
