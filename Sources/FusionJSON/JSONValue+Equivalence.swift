extension JSONValue {
    /// Whether two values mean the same JSON: an object's members in any order, strings
    /// and keys by their Unicode scalars, and
    /// numbers by value (`1`, `1.0` and `1e0` are one number; integers compare exactly,
    /// never through a `Double` that cannot hold them all).
    ///
    /// What scenario files and host requests are matched with: their authors write JSON,
    /// not the order or spelling a library happens to write. `==` compares structure.
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)): return Int(exactly: b) == a
        // By their Unicode scalars, as every other language compares them: Swift's `==`
        // also equates canonically equivalent strings ("café" written two ways), whose
        // bytes in the state differ (docs/rules/scenario-comparison.md).
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEquivalent(to: $1) }
        case (.object(let a), .object(let b)):
            // Keys are unique (the parser refuses duplicates), so equal counts and every
            // member found in the other make the same object.
            guard a.count == b.count else { return false }
            return a.allSatisfy { member in
                b.first { $0.key.unicodeScalars.elementsEqual(member.key.unicodeScalars) }
                    .map { member.value.isEquivalent(to: $0.value) } ?? false
            }
        default: return false
        }
    }
}
