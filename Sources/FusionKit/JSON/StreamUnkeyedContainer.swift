// DoubleText and JSONEscaping, inlined per field.
@_spi(FusionKit) import FusionJSON

struct StreamUnkeyed: UnkeyedEncodingContainer {
    let writer: StreamWriter
    let frame: Int
    var count = 0
    var codingPath: [any CodingKey] {
        writer.broken = true
        return []
    }

    init(writer: StreamWriter, frame: Int) {
        self.writer = writer
        self.frame = frame
    }

    mutating func encodeNil() throws {
        try writer.beginElement(frame)
        count += 1
        writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try writer.beginElement(frame)
        count += 1
        try writer.encodeNested(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        do {
            try writer.beginElement(frame)
        } catch {
            writer.broken = true
        }
        count += 1
        return KeyedEncodingContainer(StreamKeyed<NestedKey>(writer: writer, frame: writer.openNestedObject(), record: nil))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        do {
            try writer.beginElement(frame)
        } catch {
            writer.broken = true
        }
        count += 1
        return StreamUnkeyed(writer: writer, frame: writer.openNestedArray())
    }

    mutating func superEncoder() -> any Encoder {
        writer.broken = true
        return writer
    }
}
