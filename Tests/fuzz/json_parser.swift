// json_parser.swift: the one JSON parser (Sources/FusionJSON/JSONParser.swift), alone.
//
// FusionKit parses every input, state and option a library is given with it, and
// FusionHost every manifest, state and file a host reads: this target fuzzes what both
// run. Built against FusionJSON's objects only (scripts/test-reliability).
//
// Any bytes: parsing either fails with an error that points inside the text, or gives
// a value that the writer writes as JSON the parser reads back to the same text (a
// round trip: what the library relies on when it writes states and reads them back as
// fk_create's state, and the host when it saves a state file).
import FusionJSON

private func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONParseError> {
    Result { () throws(JSONParseError) in try JSONParser.parse(bytes) }
}

private func write(_ value: JSONValue) -> [UInt8] { JSONWriter.serialize(value) }

@c(LLVMFuzzerTestOneInput)
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    switch parse(bytes) {
    case .failure(let error):
        precondition(
            error.offset >= 0 && error.offset <= size && error.line >= 1 && error.column >= 1,
            "an error outside the text: \(error) for \(size) bytes")
        precondition(!error.description.isEmpty)
    case .success(let value):
        let written = write(value)
        let again = written.withUnsafeBytes { parse($0) }
        guard case .success(let reread) = again else {
            preconditionFailure("the parser refuses its writer's output \(String(decoding: written, as: UTF8.self)): \(again)")
        }
        let rewritten = write(reread)
        precondition(
            rewritten == written,
            "written twice, a value changed: \(String(decoding: written, as: UTF8.self)) then \(String(decoding: rewritten, as: UTF8.self))"
        )
        // What scenarios match with: the value read back means what was read.
        precondition(reread.isEquivalent(to: value), "read back, a value means something else: \(String(decoding: written, as: UTF8.self))")
        // What state files and `fusion inspect` hold: pretty text reads back to the same value.
        var pretty = JSONWriter()
        pretty.writePretty(value)
        let fromPretty = pretty.bytes.withUnsafeBytes { parse($0) }
        guard case .success(let prettyValue) = fromPretty, write(prettyValue) == written else {
            preconditionFailure("pretty text reads back differently: \(String(decoding: pretty.bytes, as: UTF8.self)): \(fromPretty)")
        }
    }
    return 0
}
