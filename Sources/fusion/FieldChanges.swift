import FusionHost

/// What changed between two states, field by field: nested objects by their paths
/// (profile.name), arrays of equal length by index (networks[2].isJoined).
enum FieldChanges {
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
        guard let old = before.members, let new = after.members else { return [] }
        var keys = Set<String>()
        for field in new where old.first(where: { $0.key == field.key })?.value != field.value { keys.insert(field.key) }
        return keys
    }

    private static func collect(_ before: JSONValue, _ after: JSONValue, path: String, into found: inout [Change]) {
        guard before != after else { return }
        switch (before, after) {
        case (.object(let old), .object(let new)):
            for field in new {
                let childPath = path.isEmpty ? field.key : "\(path).\(field.key)"
                if let previous = old.first(where: { $0.key == field.key })?.value {
                    collect(previous, field.value, path: childPath, into: &found)
                } else {
                    found.append(Change(path: childPath, before: nil, after: field.value))
                }
            }
            for field in old where !new.contains(where: { $0.key == field.key }) {
                found.append(Change(path: path.isEmpty ? field.key : "\(path).\(field.key)", before: field.value, after: nil))
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
