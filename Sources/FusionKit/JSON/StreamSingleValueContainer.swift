// DoubleText and JSONEscaping, inlined per field.
@_spi(FusionKit) import FusionJSON

struct StreamSingle: SingleValueEncodingContainer {
    let writer: StreamWriter
    var codingPath: [any CodingKey] {
        writer.broken = true
        return []
    }

    mutating func encodeNil() throws { writer.writeNull() }
    mutating func encode(_ value: Bool) throws { writer.writeBool(value) }
    mutating func encode(_ value: String) throws { writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try writer.writeDouble(value) }
    mutating func encode(_ value: Float) throws { try writer.writeDouble(Double(value)) }
    mutating func encode(_ value: Int) throws { writer.writeInteger(value) }
    // Each width spelled out: left to the generic encode below, an Int8 would come back
    // here through its own encode(to:), for ever.
    mutating func encode(_ value: Int8) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws {
        // Beyond Int.max the tree encoder writes a double; let it.
        guard value <= UInt64(Int.max) else { throw writer.outOfOrder() }
        writer.writeInteger(value)
    }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.encodeNested(value) }
}
