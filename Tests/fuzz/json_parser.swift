// json_parser.swift: FusionKit's JSON parser alone (Sources/FusionKit/JSON/JSONParser.swift).
//
// Any bytes: parsing either fails with an error that points inside the text, or gives
// a value that FusionKit's writer writes as JSON the parser reads back to the same
// text (a round trip: what the library relies on when it writes states and reads them
// back as fk_create's state). `parse` and `write` are the two lines to repoint when
// the parsers are merged.
import FusionKit

private func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONParseError> {
    Result { () throws(JSONParseError) in try JSONParser.parse(bytes) }
}

private func write(_ value: JSONValue) -> [UInt8] { JSONWriter.serialize(value) }

@c(LLVMFuzzerTestOneInput)
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    switch parse(bytes) {
    case .failure(let error):
        precondition(error.offset >= 0 && error.offset <= size && error.line >= 1 && error.column >= 1,
                     "an error outside the text: \(error) for \(size) bytes")
        precondition(!error.description.isEmpty)
    case .success(let value):
        let written = write(value)
        let again = written.withUnsafeBytes { parse($0) }
        guard case .success(let reread) = again else {
            preconditionFailure("the parser refuses its writer's output \(String(decoding: written, as: UTF8.self)): \(again)")
        }
        let rewritten = write(reread)
        precondition(rewritten == written,
                     "written twice, a value changed: \(String(decoding: written, as: UTF8.self)) then \(String(decoding: rewritten, as: UTF8.self))")
    }
    return 0
}
