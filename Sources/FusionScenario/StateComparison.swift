import FusionHost

/// How a state differs from what a step says it should be, as lines a person can act
/// on: `destination.connect.isConnecting: expected true, got false`.
enum StateComparison {
    /// The fields `expected` names, compared with `actual`: objects field by field,
    /// recursively; anything else must be equal.
    static func partial(expected: JSONValue, actual: JSONValue?, at path: String = "") -> [String] {
        if case .object(let fields) = expected, let actual, case .object = actual {
            return fields.flatMap { key, value in
                partial(expected: value, actual: actual[key], at: join(path, key))
            }
        }
        guard let actual else { return ["\(name(path)): expected \(expected.jsonText), but the state has no such field"] }
        return expected == actual ? [] : elementwise(expected, actual, at: path)
    }

    /// Arrays of one length are told apart element by element (`networks[2].name`);
    /// anything else as a whole.
    private static func elementwise(_ expected: JSONValue, _ actual: JSONValue, at path: String) -> [String] {
        if case .array(let wanted) = expected, case .array(let have) = actual, wanted.count == have.count {
            return zip(wanted, have).enumerated().flatMap { index, pair in exact(expected: pair.0, actual: pair.1, at: "\(path)[\(index)]") }
        }
        return ["\(name(path)): expected \(expected.jsonText), got \(actual.jsonText)"]
    }

    /// Every difference between two whole states, field by field.
    static func exact(expected: JSONValue, actual: JSONValue, at path: String = "") -> [String] {
        if case .object(let wanted) = expected, case .object(let have) = actual {
            var lines: [String] = []
            for (key, value) in wanted {
                if let other = actual[key] {
                    lines += exact(expected: value, actual: other, at: join(path, key))
                } else {
                    lines.append("\(name(join(path, key))): expected \(value.jsonText), but the state has no such field")
                }
            }
            for (key, value) in have where expected[key] == nil {
                lines.append("\(name(join(path, key))): not expected, got \(value.jsonText)")
            }
            return lines
        }
        return expected == actual ? [] : elementwise(expected, actual, at: path)
    }

    /// The changes from one state to the next, descending into objects only: a changed
    /// array or scalar, or a field that appeared or went away, is one change.
    static func changes(from old: JSONValue?, to new: JSONValue?, at path: String = "") -> [(path: String, old: JSONValue?, new: JSONValue?)] {
        if let old, let new, case .object(let oldFields) = old, case .object(let newFields) = new {
            var found: [(path: String, old: JSONValue?, new: JSONValue?)] = []
            for (key, value) in newFields { found += changes(from: old[key], to: value, at: join(path, key)) }
            for (key, value) in oldFields where new[key] == nil { found.append((join(path, key), value, nil)) }
            return found
        }
        return old == new ? [] : [(path, old, new)]
    }

    /// The paths a step names: every field of its expectation, down to the leaves.
    static func namedPaths(_ expected: JSONValue) -> [String] {
        func paths(_ value: JSONValue, _ path: String) -> [String] {
            guard case .object(let fields) = value else { return [path] }
            return [path] + fields.flatMap { key, child in paths(child, join(path, key)) }
        }
        guard case .object(let fields) = expected else { return [] }
        return fields.flatMap { key, value in paths(value, key) }
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
