/// JSON Patch (RFC 6902) between two values of one `Encodable` type, computed on the
/// Swift values rather than on their JSON: subtrees that compare equal through
/// `Equatable` are skipped without being encoded, arrays are compared element by
/// element, and only what changed is encoded. So a change to one network among
/// thousands costs a comparison pass and one small encode, not a whole state.
///
/// The operations are written as JSON text straight away (leaves by the writer, other
/// values by the stream encoder and its plans): no `JSONValue` tree is built on the way.
/// Applying the patch to the JSON of `old` (as the encoders write it) gives the JSON of
/// `new`.
public enum StateDiff {
    /// The operations as JSON text, a JSON array.
    public static func patchJSON<T: Encodable>(from old: T, to new: T) throws -> [UInt8] {
        var operations = try operations(from: old, to: new)
        operations.finish()
        return operations.writer.bytes
    }

    /// The operations, parsed (for tests and tools; the library writes `patchJSON`).
    public static func patch<T: Encodable>(from old: T, to new: T) throws -> [JSONValue] {
        guard case .array(let operations) = try JSONParser.parse(patchJSON(from: old, to: new)) else { return [] }
        return operations
    }

    /// The operations written so far, the array not yet closed: `Store.patch` writes them
    /// into its answer as they are.
    static func operations<T: Encodable>(from old: T, to new: T, into operations: PatchOperations = PatchOperations()) throws
        -> PatchOperations
    {
        var differ = Differ(operations: operations)
        try differ.diff(old, new, path: "")
        return differ.operations
    }
}

/// Arrays whose elements can be compared without encoding them.
private protocol ComparableElements {
    /// Indices whose elements differ, when `other` is the same kind of array with the
    /// same count; nil otherwise.
    func changedIndices(comparedTo other: Any) -> [Int]?
    var elementCount: Int { get }
    func element(at index: Int) -> any Encodable
    /// The length of the common prefix and suffix with `other`.
    func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)?
    /// Diffs the element at `index` of `old` (the same kind of array) with this one's.
    func diffElement(at index: Int, old: Any, into differ: inout Differ, path: String) throws
}

extension Array: ComparableElements where Element: Equatable & Encodable {
    /// Elements whose stored fields hold the same bits are the same value, and need no
    /// `==`: most elements of an array copied on write (strings share their storage).
    /// Only the fields' own bytes are compared, not the padding between them, which a
    /// copy leaves undefined; differing bits still go to `==`.
    func changedIndices(comparedTo other: Any) -> [Int]? {
        guard let other = other as? [Element], other.count == count else { return nil }
        let ranges = EncodingPlans.shared.identityRanges(of: Element.self) ?? []
        let stride = MemoryLayout<Element>.stride
        return withUnsafeBufferPointer { new in
            other.withUnsafeBufferPointer { old in
                var changed: [Int] = []
                guard let a = new.baseAddress, let b = old.baseAddress, a != b else { return changed }
                ranges.withUnsafeBufferPointer { ranges in
                    // Raw pointers and a stride read once: this loop runs as generic code.
                    var newElement = UnsafeRawPointer(a)
                    var oldElement = UnsafeRawPointer(b)
                    for index in 0..<new.count {
                        if ranges.isEmpty || !IdentityRanges.same(newElement, oldElement, ranges),
                            newElement.assumingMemoryBound(to: Element.self).pointee
                                != oldElement.assumingMemoryBound(to: Element.self).pointee
                        {
                            changed.append(index)
                        }
                        newElement += stride
                        oldElement += stride
                    }
                }
                return changed
            }
        }
    }

    var elementCount: Int { count }

    func diffElement(at index: Int, old: Any, into differ: inout Differ, path: String) throws {
        guard let old = old as? [Element] else { return }
        try differ.diff(old[index], self[index], path: path)
    }

    func element(at index: Int) -> any Encodable { self[index] }

    func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)? {
        guard let other = other as? [Element] else { return nil }
        var prefix = 0
        while prefix < count, prefix < other.count, self[prefix] == other[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < count - prefix, suffix < other.count - prefix,
            self[count - 1 - suffix] == other[other.count - 1 - suffix]
        {
            suffix += 1
        }
        return (prefix, suffix)
    }
}

private extension Equatable {
    func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

struct Differ {
    var operations: PatchOperations
    /// Where the plan walker is (see `walk`).
    private var pointer: [UInt8] = []
    /// The changed elements' indices of the arrays being walked, innermost last: one buffer
    /// for the whole diff, not one per array.
    private var changedIndices: [Int] = []

    init(operations: PatchOperations) {
        self.operations = operations
    }

    mutating func diff<T: Encodable>(_ old: T, _ new: T, path: String) throws {
        // The same bits are the same value: no need to ask `==`, which for a struct holding
        // large arrays would compare all of them before the fields are looked at one by one.
        if IdentityRanges.sameBits(old, new) { return }
        // Numbers, booleans and strings: compared and replaced, without casts or captures.
        if let equal = Self.leavesEqual(old, new) {
            if !equal {
                operations.begin(.replace, path)
                Self.writeLeaf(new, to: &operations.writer)
                operations.end()
            }
            return
        }
        // A struct written member by member: walk its plan in memory (see `DiffPlan`).
        // (Asked before the array cast below, whose conformance lookup costs more.)
        if let plan = DiffPlans.shared.plan(for: T.self) {
            try withUnsafePointer(to: old) { oldValue in
                try withUnsafePointer(to: new) { newValue in
                    try diff(plan: plan, UnsafeRawPointer(oldValue), UnsafeRawPointer(newValue), path: path)
                }
            }
            return
        }
        if let array = new as? any ComparableElements {
            try diffArray(old: old, new: array, path: path, whole: new)
            return
        }
        if try diffAlike(Captured.capture(old), Captured.capture(new), path: path) { return }
        if let equatable = new as? any Equatable, equatable.isEqual(to: old) { return }
        try replace(path, with: new)
    }

    private mutating func diffArray<T: Encodable>(old: T, new: any ComparableElements, path: String, whole: T) throws {
        if let changed = new.changedIndices(comparedTo: old) {
            if changed.count * 2 > max(new.elementCount, 1) && changed.count > 1 {
                try replace(path, with: whole)
                return
            }
            for index in changed {
                try diffElements(old, new, index, path: path + "/" + String(index))
            }
            return
        }
        // Different lengths: keep the common ends, remove and add the middle.
        guard let (prefix, suffix) = new.commonEnds(with: old), let oldArray = old as? any ComparableElements else {
            try replace(path, with: whole)
            return
        }
        let oldMiddle = oldArray.elementCount - prefix - suffix
        let newMiddle = new.elementCount - prefix - suffix
        if oldMiddle + newMiddle > new.elementCount {
            try replace(path, with: whole)
            return
        }
        for index in stride(from: prefix + oldMiddle - 1, through: prefix, by: -1) {
            operations.begin(.remove, path + "/\(index)", hasValue: false)
        }
        for index in prefix..<(prefix + newMiddle) {
            operations.begin(.add, path + "/\(index)")
            try Self.write(new.element(at: index), to: &operations.writer)
            operations.end()
        }
    }

    private mutating func diffElements<T: Encodable>(_ old: T, _ new: any ComparableElements, _ index: Int, path: String) throws {
        try new.diffElement(at: index, old: old, into: &self, path: path)
    }

    /// For the JSON leaf types, whether the two are equal; nil for other types.
    private static func leavesEqual<T>(_ a: T, _ b: T) -> Bool? {
        // Strings by their bytes: `==` calls canonically equivalent strings equal ("é" as one
        // scalar or as "e" and a combining accent), but their JSON differs.
        if T.self == String.self { return unsafeBitCast(a, to: String.self).utf8.elementsEqual(unsafeBitCast(b, to: String.self).utf8) }
        if T.self == Int.self { return unsafeBitCast(a, to: Int.self) == unsafeBitCast(b, to: Int.self) }
        if T.self == Double.self { return unsafeBitCast(a, to: Double.self) == unsafeBitCast(b, to: Double.self) }
        if T.self == Bool.self { return unsafeBitCast(a, to: Bool.self) == unsafeBitCast(b, to: Bool.self) }
        return nil
    }

    private mutating func diffParts(_ old: Captured.Part, _ new: Captured.Part, path: String) throws {
        switch (old, new) {
        case (.null, .null):
            return
        case (.value(let a), .value(let b)):
            try diffExistentials(a, b, path: path)
        case (.nested(let a), .nested(let b)):
            try diffCaptured(a, b, path: path, new: new)
        default:
            operations.begin(.replace, path)
            try Self.write(new, to: &operations.writer)
            operations.end()
        }
    }

    private mutating func diffCaptured(_ old: Captured, _ new: Captured, path: String, new part: Captured.Part) throws {
        if try diffAlike(old, new, path: path) { return }
        operations.begin(.replace, path)
        try Self.write(part, to: &operations.writer)
        operations.end()
    }

    /// Two captured values of one shape, compared part by part: structs with the same
    /// fields field by field, single values (an optional: a struct's field walked in
    /// memory has its declared type) by what is inside. False when their shapes differ.
    private mutating func diffAlike(_ old: Captured, _ new: Captured, path: String) throws -> Bool {
        switch (old, new) {
        case (.keyed(let a), .keyed(let b)) where a.map(\.key) == b.map(\.key):
            for (oldField, newField) in zip(a, b) {
                try diffParts(oldField.value, newField.value, path: path + "/" + Self.escape(newField.key))
            }
            return true
        case (.single(let a), .single(let b)):
            try diffParts(a, b, path: path)
            return true
        default:
            return false
        }
    }

    /// Walks two values of `plan`'s type where they are: bytes compared until something
    /// differs, leaves compared and written by their type, `other` by the generic code.
    mutating func diff(plan: DiffPlan, _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, path: String) throws {
        let outer = pointer
        pointer.removeAll(keepingCapacity: true)
        pointer.reserveCapacity(64)
        pointer.append(contentsOf: path.utf8)
        defer { pointer = outer }
        try walk(plan, old, new)
    }

    /// `diff(plan:)` at `pointer`, the JSON Pointer so far as bytes: each field and index
    /// is pushed and popped there, no string is made per step.
    private mutating func walk(_ plan: DiffPlan, _ old: UnsafeRawPointer, _ new: UnsafeRawPointer) throws {
        switch plan.kind {
        case .leaf(let leaf):
            if Self.leafEqual(leaf, old, new) { return }
            operations.begin(.replace, pointer: pointer)
            Self.writeLeaf(leaf, new, to: &operations.writer)
            operations.end()
        case .fields(let fields):
            let mark = pointer.count
            try fields.withUnsafeBufferPointer { fields in
                // Through the buffer: a field is read in place, not copied (and retained).
                for index in fields.indices {
                    let offset = fields[index].offset
                    let same = fields[index].plan.ranges.withUnsafeBufferPointer { IdentityRanges.same(old + offset, new + offset, $0) }
                    if same { continue }
                    pointer.append(UInt8(ascii: "/"))
                    pointer.append(contentsOf: fields[index].pointerName)
                    try walk(fields[index].plan, old + offset, new + offset)
                    pointer.removeLast(pointer.count - mark)
                }
            }
        case .elements(let elements):
            try walkElements(elements, plan, old, new)
        case .optional(let wrapped):
            let (oldNil, newNil) = (wrapped.isNil(old), wrapped.isNil(new))
            if oldNil && newNil { return }
            guard oldNil == newNil else {
                operations.begin(.replace, pointer: pointer)
                try Self.write(plan, new, to: &operations.writer)
                operations.end()
                return
            }
            // An optional's value is stored where the optional is.
            try walk(wrapped.plan, old, new)
        case .other:
            try diffOther(plan, old, new, path: String(decoding: pointer, as: UTF8.self))
        }
    }

    private mutating func walkElements(_ elements: DiffPlan.Elements, _ plan: DiffPlan, _ old: UnsafeRawPointer, _ new: UnsafeRawPointer)
        throws
    {
        let (oldBase, oldCount) = elements.buffer(old)
        let (newBase, newCount) = elements.buffer(new)
        // Lengths that differ: the generic code keeps the common ends.
        guard oldCount == newCount else { return try diffOther(plan, old, new, path: String(decoding: pointer, as: UTF8.self)) }
        guard let oldBase, let newBase, oldBase != newBase else { return }
        // This array's changed indices go after those of the arrays it is inside.
        let first = changedIndices.count
        defer { changedIndices.removeLast(changedIndices.count - first) }
        elements.ranges.withUnsafeBufferPointer { ranges in
            var a = oldBase
            var b = newBase
            for index in 0..<newCount {
                // The same bits in the fields are the same element; other bits may still be.
                let same = ranges.isEmpty ? IdentityRanges.sameBits(a, b, count: elements.stride) : IdentityRanges.same(a, b, ranges)
                if !same && !elements.equal(a, b) { changedIndices.append(index) }
                a += elements.stride
                b += elements.stride
            }
        }
        let changed = changedIndices.count - first
        // Most elements changed: the whole array costs less than an operation for each.
        if changed * 2 > max(newCount, 1) && changed > 1 {
            operations.begin(.replace, pointer: pointer)
            try Self.write(plan, new, to: &operations.writer)
            operations.end()
            return
        }
        let mark = pointer.count
        for position in first..<(first + changed) {
            let index = changedIndices[position]
            pointer.append(UInt8(ascii: "/"))
            Self.appendDecimal(index, to: &pointer)
            let offset = index * elements.stride
            try walk(elements.plan, oldBase + offset, newBase + offset)
            pointer.removeLast(pointer.count - mark)
        }
    }

    /// An index's decimal digits (indices are never negative).
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        let start = bytes.count
        var rest = value
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    /// The value of `plan`'s type at `value`, written by the stream encoder.
    private static func write(_ plan: DiffPlan, _ value: UnsafeRawPointer, to writer: inout JSONWriter) throws {
        func open<T: Encodable>(_: T.Type) throws { try writeValue(value.assumingMemoryBound(to: T.self).pointee, to: &writer) }
        try open(plan.type)
    }

    /// Two values of a type the plan leaves to the generic code, loaded from where they are.
    private mutating func diffOther(_ plan: DiffPlan, _ old: UnsafeRawPointer, _ new: UnsafeRawPointer, path: String) throws {
        func open<T: Encodable>(_: T.Type) throws {
            try diff(old.assumingMemoryBound(to: T.self).pointee, new.assumingMemoryBound(to: T.self).pointee, path: path)
        }
        try open(plan.type)
    }

    private static func leafEqual(_ leaf: DiffPlan.Leaf, _ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
        switch leaf {
        // By their bytes: `==` calls canonically equivalent strings equal, but their JSON differs.
        case .string:
            return a.assumingMemoryBound(to: String.self).pointee.utf8.elementsEqual(b.assumingMemoryBound(to: String.self).pointee.utf8)
        case .int: return a.load(as: Int.self) == b.load(as: Int.self)
        case .double: return a.load(as: Double.self) == b.load(as: Double.self)
        case .bool: return a.load(as: Bool.self) == b.load(as: Bool.self)
        }
    }

    private static func writeLeaf(_ leaf: DiffPlan.Leaf, _ value: UnsafeRawPointer, to writer: inout JSONWriter) {
        switch leaf {
        case .string: writer.writeString(value.assumingMemoryBound(to: String.self).pointee)
        case .int: writer.writeInteger(value.load(as: Int.self))
        case .double: writer.writeDouble(value.load(as: Double.self))
        case .bool: writer.writeBool(value.load(as: Bool.self))
        }
    }

    /// Opens the two existentials as one type and diffs them.
    private mutating func diffExistentials(_ old: any Encodable, _ new: any Encodable, path: String) throws {
        func open<T: Encodable>(_ typedNew: T) throws {
            if let typedOld = old as? T {
                try diff(typedOld, typedNew, path: path)
            } else {
                try replace(path, with: typedNew)
            }
        }
        try open(new)
    }

    private mutating func replace<T: Encodable>(_ path: String, with value: T) throws {
        operations.begin(.replace, path)
        try Self.writeValue(value, to: &operations.writer)
        operations.end()
    }

    /// A JSON leaf (`leavesEqual` said `T` is one), written as the encoders write it.
    private static func writeLeaf<T>(_ value: T, to writer: inout JSONWriter) {
        if T.self == String.self { return writer.writeString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return writer.writeInteger(unsafeBitCast(value, to: Int.self)) }
        if T.self == Double.self { return writer.writeDouble(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return writer.writeBool(unsafeBitCast(value, to: Bool.self)) }
    }

    private static func writeValue<T: Encodable>(_ value: T, to writer: inout JSONWriter) throws {
        if leavesEqual(value, value) != nil { return writeLeaf(value, to: &writer) }
        writer.writeJSON(try JSONStreamEncoder().encode(value))
    }

    private static func write(_ value: any Encodable, to writer: inout JSONWriter) throws {
        func open<T: Encodable>(_ value: T) throws { try writeValue(value, to: &writer) }
        try open(value)
    }

    private static func write(_ part: Captured.Part, to writer: inout JSONWriter) throws {
        switch part {
        case .null: writer.writeRaw("null")
        case .value(let value): try write(value, to: &writer)
        case .nested(let captured): try write(captured, to: &writer)
        }
    }

    private static func write(_ captured: Captured, to writer: inout JSONWriter) throws {
        switch captured {
        case .keyed(let fields):
            writer.writeRaw("{")
            for (index, field) in fields.enumerated() {
                if index > 0 { writer.writeRaw(",") }
                writer.writeString(field.key)
                writer.writeRaw(":")
                try write(field.value, to: &writer)
            }
            writer.writeRaw("}")
        case .unkeyed(let parts):
            writer.writeRaw("[")
            for (index, part) in parts.enumerated() {
                if index > 0 { writer.writeRaw(",") }
                try write(part, to: &writer)
            }
            writer.writeRaw("]")
        case .single(let part): try write(part, to: &writer)
        case .opaque: throw JSONCodingError(path: [], reason: "a nested value could not be captured for a patch")
        }
    }

    /// RFC 6901: "~" is "~0", "/" is "~1". By Unicode scalars, not Characters: a "/"
    /// followed by a combining mark is one Character, but still a "/" in the path.
    static func escape(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        var result = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            switch scalar {
            case "~": result.append(contentsOf: "~0".unicodeScalars)
            case "/": result.append(contentsOf: "~1".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
