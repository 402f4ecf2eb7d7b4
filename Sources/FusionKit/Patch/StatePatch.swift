/// What `fk_state_patch` answers (`Store.patch`): `{"from":V,"to":N,"patch":[…]}`, the
/// RFC 6902 operations that turn the state at V into the state at N, or
/// `{"from":null,"to":N,"state":{…}}`, the whole state, when V is not kept or when the
/// whole state costs less than the patch, in time or in bytes (`StatePatchCost`).
public enum StatePatch {
    /// The answer for a caller holding `base` (nil: a version no longer kept), the state
    /// now being `now` at `version`. `wholeBytes`: the length of the state's JSON the last
    /// time it was written (Int.max when never); `whole` writes the state (at `version` or
    /// a later one, whose version the answer then carries).
    public static func json<S: Encodable>(
        from base: (state: S, version: UInt64)?, to now: S, version: UInt64, wholeBytes: Int,
        whole: () throws -> (bytes: [UInt8], version: UInt64)
    ) throws -> (bytes: [UInt8], version: UInt64) {
        if let base, base.version == version { return (header(from: base.version, to: version, patch: "[]"), version) }
        if let base, !StatePatchCost.wholeIsCheaper(stateBytes: wholeBytes) {
            var operations = try StateDiff.operations(from: base.state, to: now)
            operations.finish()
            // Never as many bytes as the whole state: then the whole state it is.
            guard operations.writer.bytes.count < wholeBytes else { return try wholeState(whole) }
            var writer = JSONWriter(reservingCapacity: operations.writer.bytes.count + 48)
            writeHeader(from: base.version, to: version, into: &writer)
            writer.writeRaw(",\"patch\":")
            writer.writeJSON(operations.writer)
            writer.writeRaw("}")
            return (writer.bytes, version)
        }
        return try wholeState(whole)
    }

    private static func wholeState(_ whole: () throws -> (bytes: [UInt8], version: UInt64)) throws -> (bytes: [UInt8], version: UInt64) {
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
