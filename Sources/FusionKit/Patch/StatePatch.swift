/// What `fk_state_patch` answers (`Store.patch`): `{"from":V,"to":N,"patch":[…]}`, the
/// RFC 6902 operations that turn the state at V into the state at N, or
/// `{"from":null,"to":N,"state":{…}}`, the whole state, when V is not kept or when the
/// whole state costs less than the patch, in time or in bytes (`StatePatchCost`).
public enum StatePatch {
    /// The answer for a caller holding `base`, the state at `baseVersion`, the state now
    /// being `now` at `version`. `wholeBytes`: the length of the state's JSON the last time
    /// it was written (Int.max when never); `whole` writes the state (at `version` or a
    /// later one, whose version the answer then carries).
    ///
    /// The two states and their versions go as separate arguments, not as an optional
    /// tuple: unspecialized generic code (the store's, a library's) would look the tuple's
    /// type up and copy the state out of it at every call.
    public static func json<S: Encodable>(
        from base: S, version baseVersion: UInt64, to now: S, version: UInt64, wholeBytes: Int,
        whole: () throws -> (bytes: [UInt8], version: UInt64)
    ) throws -> (bytes: [UInt8], version: UInt64) {
        if baseVersion == version { return (header(from: baseVersion, to: version, patch: "[]"), version) }
        if StatePatchCost.wholeIsCheaper(stateBytes: wholeBytes) { return try self.whole(whole) }
        // The answer's header first, then the operations in the same writer.
        let header = PatchOperations(reservingCapacity: 512) { writer in
            writeHeader(from: baseVersion, to: version, into: &writer)
            writer.writeRaw(",\"patch\":")
        }
        var operations = try StateDiff.operations(from: base, to: now, into: header)
        operations.finish()
        // Never as many bytes as the whole state: then the whole state it is.
        guard operations.arrayByteCount < wholeBytes else { return try self.whole(whole) }
        operations.writer.writeRaw("}")
        return (operations.writer.bytes, version)
    }

    /// The answer for a caller whose version is no longer kept (or when the whole state
    /// costs less than a patch): `{"from":null,"to":N,"state":{…}}`, the state `whole` writes.
    public static func whole(_ whole: () throws -> (bytes: [UInt8], version: UInt64)) throws -> (bytes: [UInt8], version: UInt64) {
        let (state, stateVersion) = try whole()
        var writer = JSONWriter(reservingCapacity: state.count + 48)
        writer.writeRaw("{\"from\":null,\"to\":")
        writer.writeInteger(Int(truncatingIfNeeded: stateVersion))
        writer.writeRaw(",\"state\":")
        writer.writeJSON(state)
        writer.writeRaw("}")
        return (writer.bytes, stateVersion)
    }

    private static func header(from: UInt64, to: UInt64, patch: StaticString) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 48)
        writeHeader(from: from, to: to, into: &writer)
        writer.writeRaw(",\"patch\":")
        writer.writeRaw(patch)
        writer.writeRaw("}")
        return writer.bytes
    }

    private static func writeHeader(from: UInt64, to: UInt64, into writer: inout JSONWriter) {
        writer.writeRaw("{\"from\":")
        writer.writeInteger(Int(truncatingIfNeeded: from))
        writer.writeRaw(",\"to\":")
        writer.writeInteger(Int(truncatingIfNeeded: to))
    }
}
