/// What a library says about a feature without describing it: its name, its summary and
/// its state version. Reading these runs none of the feature's `Decodable` code, so a
/// host that starts with the summaries (fk_manifest_summary) pays nothing per feature.
public struct FeatureSummary: Sendable, Equatable {
    public let name: String
    public let summary: String
    /// The version of the state's JSON shape (`Feature.stateVersion`).
    public let stateVersion: Int

    public init(_ type: any Feature.Type) {
        name = type.name
        summary = type.summary
        stateVersion = type.stateVersion
    }

    /// This feature's entry in the manifest summary: the first three members of its
    /// entry in the manifest.
    public var manifest: JSONValue {
        ["name": .string(name), "summary": .string(summary), "stateVersion": .integer(stateVersion)]
    }
}
