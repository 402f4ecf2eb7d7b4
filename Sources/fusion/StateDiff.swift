import FusionHost

/// What changed between two states, field by field: nested objects by their paths
/// (profile.name), arrays of equal length by index (networks[2].isJoined).
enum StateDiff {
    struct Change: Equatable {
        var path: String
        /// nil when the field is new.
        var before: JSONValue?
        /// nil when the field is gone.
        var after: JSONValue?
    }

    static func changes(from before: JSONValue, to after: JSONValue) -> [Change] {
        var found: [Change] = []
        collect(before, after, path: "", into: &found)
        return found
    }

    /// The top-level fields that changed, to highlight in a state.
    static func changedKeys(from before: JSONValue, to after: JSONValue) -> Set<String> {
        guard let old = before.objectValue, let new = after.objectValue else { return [] }
        var keys = Set<String>()
        for (key, value) in new where old.first(where: { $0.key == key })?.value != value { keys.insert(key) }
        return keys
    }

    private static func collect(_ before: JSONValue, _ after: JSONValue, path: String, into found: inout [Change]) {
        guard before != after else { return }
        switch (before, after) {
        case (.object(let old), .object(let new)):
            for (key, value) in new {
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                if let previous = old.first(where: { $0.key == key })?.value {
                    collect(previous, value, path: childPath, into: &found)
                } else {
                    found.append(Change(path: childPath, before: nil, after: value))
                }
            }
            for (key, value) in old where !new.contains(where: { $0.key == key }) {
                found.append(Change(path: path.isEmpty ? key : "\(path).\(key)", before: value, after: nil))
            }
        case (.array(let old), .array(let new)) where old.count == new.count:
            for (index, pair) in zip(old, new).enumerated() {
                collect(pair.0, pair.1, path: "\(path)[\(index)]", into: &found)
            }
        default:
            found.append(Change(path: path.isEmpty ? "(state)" : path, before: before, after: after))
        }
    }

    /// One line per change: `value: 1 → 2`.
    static func describe(_ changes: [Change], style: Style) -> [String] {
        changes.map { change in
            "  \(style.key(change.path)): \(Rendering.short(change.before, style: style)) → \(Rendering.short(change.after, style: style))"
        }
    }
}
