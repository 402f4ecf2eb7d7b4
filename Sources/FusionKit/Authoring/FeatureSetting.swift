/// A setting a feature reads from the creation option `"settings"` (through
/// `Environment.setting(_:default:)`), declared in `Feature.settings`. Declared so that a
/// setting the feature does not have (a typo: `"liveScna"`) or one of the wrong kind
/// (`"liveScan": 1`) is refused with FK_ERR_INVALID_ARGUMENT when the instance is made;
/// read unchecked, both fell back to the default without a word. The manifest lists them.
public struct FeatureSetting: Sendable, Equatable {
    /// The JSON a setting's value is.
    public enum Kind: String, Sendable {
        /// `true` or `false`.
        case boolean
    }

    /// Its key in `"settings"`.
    public let name: String
    /// The JSON its value must be.
    public let kind: Kind
    /// What it changes, for the manifest and `fusion inspect`.
    public let summary: String

    /// A setting called `name`, whose value is of `kind`; `summary` says what it changes.
    public init(name: String, kind: Kind, summary: String) {
        self.name = name
        self.kind = kind
        self.summary = summary
    }

    /// A setting that is `true` or `false`.
    public static func boolean(_ name: String, summary: String) -> FeatureSetting {
        FeatureSetting(name: name, kind: .boolean, summary: summary)
    }

    /// Whether `value` is a value of this setting.
    func accepts(_ value: JSONValue) -> Bool {
        switch kind {
        case .boolean: if case .bool = value { return true } else { return false }
        }
    }

    /// Checks the option `"settings"` (an object) of an instance of `feature` against
    /// the settings it declares: every key must be one of them, with a value of its kind.
    static func check(_ settings: JSONValue, declared: [FeatureSetting], feature: String) throws(FusionError) {
        guard case .object(let members) = settings else { return }  // InstanceOptions refused it
        for member in members {
            guard let setting = declared.first(where: { $0.name == member.key }) else {
                let known =
                    declared.isEmpty
                    ? "it has no settings" : "its settings are \(declared.map { $0.name }.joined(separator: ", "))"
                throw FusionError(.invalidArgument, "feature \"\(feature)\" has no setting \"\(member.key)\"; \(known)")
            }
            guard setting.accepts(member.value) else {
                throw FusionError(
                    .invalidArgument,
                    "setting \"\(setting.name)\" of \"\(feature)\" must be a \(setting.kind.rawValue); found \(member.value.jsonText)")
            }
        }
    }

    /// This setting's entry in the manifest.
    var manifest: JSONValue {
        ["name": .string(name), "type": .string(kind.rawValue), "summary": .string(summary)]
    }
}
