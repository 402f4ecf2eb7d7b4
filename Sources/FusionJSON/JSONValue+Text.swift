/// A value as text, for messages, files and hosts that pass JSON on as a `String`.
extension JSONValue {
    /// Compact JSON, members in their order: what is sent to a library and put in messages.
    public var jsonText: String {
        String(decoding: JSONWriter.serialize(self), as: UTF8.self)
    }

    /// JSON with one member or element per line, indented by `indent` spaces per level:
    /// what people read and what saved files hold.
    public func prettyText(indent: Int = 2) -> String {
        var writer = JSONWriter()
        writer.writePretty(self, indent: indent)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `text` as a JSON string literal, quotes included, for JSON put together by hand.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        JSONWriter.appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
