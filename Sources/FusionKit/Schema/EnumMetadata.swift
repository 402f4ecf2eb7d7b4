/// Case names of a Swift enum type, read from the runtime's reflection metadata.
///
/// `Codable` gives no way to list an enum's cases, and asking authors to list them
/// again by hand would drift. The Swift runtime keeps the names in the type's field
/// descriptor (the same data `Mirror` prints case names from); this reads them. The
/// layout is the stable Swift 5 ABI. Anything unexpected (reflection metadata stripped,
/// not an enum) gives nil, and the caller falls back to describing the type as `any`.
enum EnumMetadata {
    private static let enumKind: UInt = 0x201  // MetadataKind::Enum
    private static let optionalKind: UInt = 0x202  // MetadataKind::Optional

    /// The case names, payload cases first (the runtime's tag order), or nil when
    /// `type` is not an enum or its names are not recorded.
    static func caseNames(of type: Any.Type) -> [String]? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        guard kind == enumKind else { return nil }
        // TargetEnumMetadata: kind, then the nominal type descriptor.
        guard let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return nil }
        // TargetEnumDescriptor: flags, parent, name, access function, fields (relative pointers, 4 bytes each).
        let fieldsField = descriptor + 16
        let fieldsOffset = fieldsField.load(as: Int32.self)
        guard fieldsOffset != 0 else { return nil }
        let fieldDescriptor = fieldsField + Int(fieldsOffset)
        // FieldDescriptor: mangled type name, superclass, kind (u16), record size (u16), count (u32), records.
        let recordSize = Int(fieldDescriptor.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fieldDescriptor.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12, count < 10_000 else { return nil }
        var names: [String] = []
        names.reserveCapacity(count)
        for i in 0..<count {
            // FieldRecord: flags (u32), mangled type name (rel), field name (rel).
            let nameField = fieldDescriptor + 16 + i * recordSize + 8
            let nameOffset = nameField.load(as: Int32.self)
            guard nameOffset != 0 else { return nil }
            names.append(String(cString: (nameField + Int(nameOffset)).assumingMemoryBound(to: CChar.self)))
        }
        return names
    }

    /// The type's name as written in Swift, without its module: `Network`, and for a
    /// nested type its enclosing types too (`ConnectToNetwork.State`), so that two
    /// features' `State`s keep apart in the manifest and in the code generated from it.
    static func typeName(of type: Any.Type) -> String {
        // _typeName, not String(describing:): that asks the metatype for three protocols
        // (CustomStringConvertible and others), each a scan of every loaded conformance.
        let full = _typeName(type, qualified: true)
        let parts = full.split(separator: ".", omittingEmptySubsequences: false)
        // A generic or local type's name holds punctuation and nested module names; its
        // last part is as far as a plain path goes.
        if full.contains(where: { "<>(), $".contains($0) }) || parts.count < 2 {
            return _typeName(type, qualified: false).split(separator: ".").last.map(String.init) ?? full
        }
        return parts.dropFirst().joined(separator: ".")
    }
}
