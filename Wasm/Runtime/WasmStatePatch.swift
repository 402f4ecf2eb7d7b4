/// `fk_state_patch` in the WebAssembly module: the RFC 6902 operations that turn a kept
/// version's state into the state now, in the envelope the native `StatePatch` answers
/// with (`{"from":V,"to":N,"patch":[…]}`, or `{"from":null,"to":N,"state":{…}}` when V is
/// not kept or the whole state costs less, by the same `StatePatchCost`).
///
/// The native library diffs typed states through their `Encodable` layout, which Embedded
/// Swift does not have; the module diffs the two states' JSON trees. Both answer the same
/// contract (applying the patch to the state at V gives the state at N, which the tests
/// check for both on every scenario); the operations may differ in form for the same change.
enum WasmStatePatch {
    /// The answer for a caller holding `base` (nil: not kept), the state now being `now`
    /// (its JSON text `nowBytes`) at `version`.
    static func json(from base: (state: JSONValue, version: UInt64)?, to now: JSONValue, nowBytes: [UInt8], version: UInt64) -> [UInt8] {
        var writer = JSONWriter()
        if let base, base.version == version || !StatePatchCost.wholeIsCheaper(stateBytes: nowBytes.count) {
            var operations: [JSONValue] = []
            diff(base.state, now, path: "", into: &operations)
            let patch = JSONWriter.serialize(.array(operations))
            // Never as many bytes as the whole state: then the whole state it is.
            if base.version == version || patch.count < nowBytes.count {
                writer.writeRaw("{\"from\":")
                writer.writeInteger(Int(truncatingIfNeeded: base.version))
                writer.writeRaw(",\"to\":")
                writer.writeInteger(Int(truncatingIfNeeded: version))
                writer.writeRaw(",\"patch\":")
                writer.writeJSON(patch)
                writer.writeRaw("}")
                return writer.bytes
            }
        }
        writer.writeRaw("{\"from\":null,\"to\":")
        writer.writeInteger(Int(truncatingIfNeeded: version))
        writer.writeRaw(",\"state\":")
        writer.writeJSON(nowBytes)
        writer.writeRaw("}")
        return writer.bytes
    }

    /// Appends the operations that turn `old` into `new` at `path` (a JSON Pointer).
    static func diff(_ old: JSONValue, _ new: JSONValue, path: String, into operations: inout [JSONValue]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            var kept: [String: JSONValue] = [:]
            for member in before where kept[member.key] == nil { kept[member.key] = member.value }
            var present: [String: Bool] = [:]
            for member in after { present[member.key] = true }
            for member in before where present[member.key] == nil {
                operations.append(["op": "remove", "path": .string(path + "/" + escaped(member.key))])
            }
            for member in after {
                let memberPath = path + "/" + escaped(member.key)
                if let previous = kept[member.key] {
                    diff(previous, member.value, path: memberPath, into: &operations)
                } else {
                    operations.append(["op": "add", "path": .string(memberPath), "value": member.value])
                }
            }
        case (.array(let before), .array(let after)):
            let common = min(before.count, after.count)
            for index in 0..<common {
                diff(before[index], after[index], path: path + "/" + String(index), into: &operations)
            }
            for index in common..<after.count {
                operations.append(["op": "add", "path": .string(path + "/" + String(index)), "value": after[index]])
            }
            // From the end, so that each index is still the element it names.
            for index in (common..<before.count).reversed() {
                operations.append(["op": "remove", "path": .string(path + "/" + String(index))])
            }
        default:
            if old != new { operations.append(["op": "replace", "path": .string(path), "value": new]) }
        }
    }

    /// A key as a JSON Pointer's reference token (RFC 6901): "~" as "~0", "/" as "~1".
    static func escaped(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        var out = ""
        for character in key {
            switch character {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(character)
            }
        }
        return out
    }
}
