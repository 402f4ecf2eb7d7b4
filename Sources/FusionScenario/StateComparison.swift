import FusionHost

/// How a state differs from what a step says it should be, as lines a person can act
/// on: `destination.connect.isConnecting: expected true, got false`.
enum StateComparison {
    /// The fields `expected` names, compared with `actual`: objects field by field,
    /// recursively; anything else must be equal.
    static func partial(expected: JSONValue, actual: JSONValue?, at path: String = "") -> [String] {
        if case .object(let fields) = expected, let actual, case .object = actual {
            return fields.flatMap { field in
                partial(expected: field.value, actual: actual[field.key], at: join(path, field.key))
            }
        }
        guard let actual else { return ["\(name(path)): expected \(expected.jsonText), but the state has no such field"] }
        return expected.isEquivalent(to: actual) ? [] : elementwise(expected, actual, at: path)
    }

    /// Arrays of one length are told apart element by element (`networks[2].name`);
    /// anything else as a whole.
    private static func elementwise(_ expected: JSONValue, _ actual: JSONValue, at path: String) -> [String] {
        if case .array(let wanted) = expected, case .array(let have) = actual, wanted.count == have.count {
            return zip(wanted, have).enumerated().flatMap { index, pair in exact(expected: pair.0, actual: pair.1, at: "\(path)[\(index)]")
            }
        }
        return ["\(name(path)): expected \(expected.jsonText), got \(actual.jsonText)"]
    }

    /// Every difference between two whole states, field by field.
    static func exact(expected: JSONValue, actual: JSONValue, at path: String = "") -> [String] {
        if case .object(let wanted) = expected, case .object(let have) = actual {
            var lines: [String] = []
            for field in wanted {
                if let other = actual[field.key] {
                    lines += exact(expected: field.value, actual: other, at: join(path, field.key))
                } else {
                    lines.append("\(name(join(path, field.key))): expected \(field.value.jsonText), but the state has no such field")
                }
            }
            for field in have where expected[field.key] == nil {
                lines.append("\(name(join(path, field.key))): not expected, got \(field.value.jsonText)")
            }
            return lines
        }
        return expected.isEquivalent(to: actual) ? [] : elementwise(expected, actual, at: path)
    }

    /// The changes from one state to the next, descending into objects only: a changed
    /// array or scalar, or a field that appeared or went away, is one change.
    static func changes(from old: JSONValue?, to new: JSONValue?, at path: String = "") -> [(
        path: String, old: JSONValue?, new: JSONValue?
    )] {
        if let old, let new, case .object(let oldFields) = old, case .object(let newFields) = new {
            var found: [(path: String, old: JSONValue?, new: JSONValue?)] = []
            for field in newFields { found += changes(from: old[field.key], to: field.value, at: join(path, field.key)) }
            for field in oldFields where new[field.key] == nil { found.append((join(path, field.key), field.value, nil)) }
            return found
        }
        switch (old, new) {
        case (nil, nil): return []
        case (let old?, let new?) where old.isEquivalent(to: new): return []
        default: return [(path, old, new)]
        }
    }

    /// The paths a step names: every field of its expectation, down to the leaves.
    static func namedPaths(_ expected: JSONValue) -> [String] {
        func paths(_ value: JSONValue, _ path: String) -> [String] {
            guard case .object(let fields) = value else { return [path] }
            return [path] + fields.flatMap { field in paths(field.value, join(path, field.key)) }
        }
        guard case .object(let fields) = expected else { return [] }
        return fields.flatMap { field in paths(field.value, field.key) }
    }

    /// Whether a change is named: its path, one above it, or one below it.
    static func isNamed(_ change: String, by named: [String]) -> Bool {
        named.contains { path in
            path == change || change.hasPrefix(path + ".") || path.hasPrefix(change + ".")
        }
    }

    // Paths are built with "." between fields; an array element never appears, since
    // arrays are compared whole.
    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
    private static func name(_ path: String) -> String { path.isEmpty ? "the state" : path }
}
