import FusionJSON
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": {"c": "d"}} "#)
        #expect(value == ["a": [1, -2, 3.5, 1000.0, true, false, nil], "b": ["c": "d"]])
    }

    @Test func keepsMemberOrder() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.members?.map(\.key) == ["z", "a", "m"])
    }

    @Test func integersStayExactAndLargeOnesBecomeDoubles() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .integer(Int.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(Int.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808.0))
        #expect(try JSONParser.parse("-0") == .integer(0))
        #expect(try JSONParser.parse("2.5E-3") == .double(0.0025))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser.parse(#""tab\t quote\" slash\/ back\\ nl\n u\u00e9 pair\ud83d\ude00""#)
        #expect(value == .string("tab\t quote\" slash/ back\\ nl\n ué pair😀"))
    }

    @Test func keepsRawUTF8() throws {
        #expect(try JSONParser.parse(#""와이파이 📶""#) == .string("와이파이 📶"))
    }

    @Test(arguments: [
        ("", JSONParseError.Kind.empty, "empty"),
        ("   ", .empty, "only whitespace"),
        ("{", .syntax, "expected a string key"),
        ("[1,]", .syntax, "expected a value"),
        ("{\"a\":1,}", .syntax, "expected a string key"),
        ("01", .syntax, "leading zeros"),
        ("1.", .syntax, "after the decimal point"),
        ("1e", .syntax, "exponent"),
        ("-", .syntax, "expected a digit"),
        ("\"abc", .syntax, "unterminated string"),
        ("\"a\u{01}\"", .syntax, "control character 0x01"),
        ("\"\\x\"", .syntax, "invalid escape"),
        ("\"\\ud800\"", .syntax, "unpaired UTF-16 surrogate"),
        ("\"\\udc00\"", .syntax, "unpaired UTF-16 surrogate"),
        ("\"\\u12\"", .syntax, "four hex digits"),
        ("{\"a\":1,\"a\":2}", .syntax, "duplicate key \"a\""),
        ("tru", .syntax, "expected a value"),
        ("nul", .syntax, "expected a value"),
        ("1 2", .syntax, "after the end"),
        ("1e999", .syntax, "out of range")
    ])
    func rejects(_ text: String, _ kind: JSONParseError.Kind, _ words: String) {
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.kind == kind && error.description.contains(words)
        }
    }

    @Test func reportsLineAndColumn() {
        let text = "{\n  \"a\": 1,\n  \"b\": ?\n}"
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.line == 3 && error.column == 8 && error.description.contains("unexpected '?'")
        }
    }

    @Test func rejectsInvalidUTF8WithItsOffset() {
        for (bytes, offset) in [
            ([0x22, 0xFF, 0x22], 1), ([0x22, 0x61, 0xC3, 0x28, 0x22], 2), ([0x22, 0xE0, 0x80, 0x80, 0x22], 1),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1), ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1), ([0x22, 0xE2, 0x82], 1)
        ] as [([UInt8], Int)] {
            #expect {
                _ = try JSONParser.parse(bytes)
            } throws: { error in
                (error as? JSONParseError).map { $0.kind == .invalidUTF8 && $0.offset == offset } ?? false
            }
        }
    }

    @Test func acceptsEveryValidUTF8Length() throws {
        let text = "\"a é € 😀\""
        #expect(try JSONParser.parse(Array(text.utf8)) == .string("a é € 😀"))
    }

    @Test func boundsNesting() throws {
        let ok = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONParser.parse(ok)
        let tooDeep = "[" + ok + "]"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(tooDeep) }
        // Far deeper than the stack would bear: an error, not a crash.
        let hostile = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(hostile) }
    }

    @Test func theCallerSetsTheDepthAndNamesWhatSetsIt() throws {
        let library = JSONDepthLimit(levels: 2, setting: "FK_LIMIT_JSON_DEPTH; see fk_limit()")
        _ = try JSONParser.parse(#"{"a":[1]}"#, depthLimit: library)
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"a":[[1]]}"#, depthLimit: library) }
        #expect(error?.kind == .syntax)
        #expect(error?.offset == 6)
        #expect(error?.reason == "nesting deeper than 2 levels (FK_LIMIT_JSON_DEPTH; see fk_limit())")
        let fixed = #expect(throws: JSONParseError.self) { try JSONParser.parse("[[]]", depthLimit: JSONDepthLimit(levels: 1)) }
        #expect(fixed?.reason == "nesting deeper than 1 levels")
        // 0 allows scalars only; no setting raises the limit past what the stack bears.
        #expect(try JSONParser.parse("7", depthLimit: JSONDepthLimit(levels: 0)) == 7)
        #expect(throws: JSONParseError.self) { try JSONParser.parse("[]", depthLimit: JSONDepthLimit(levels: 0)) }
        #expect(JSONDepthLimit(levels: 100_000).levels == JSONParser.maximumDepth)
        #expect(JSONDepthLimit(levels: -3).levels == 0)
    }

    /// What the host's tests held its own parser to: each error points at a byte of the
    /// text (the start of the token that is wrong), which messages turn into a line and column.
    @Test func refusesWhatIsNotJSONSayingWhere() {
        for (text, offset) in [
            ("", 0), ("{\"a\":}", 5), ("[1,]", 3), ("01", 0), ("\"open", 0), ("{\"a\":1,\"a\":2}", 7), ("tru", 0), ("1 2", 2)
        ] {
            let error = #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
            #expect(error?.offset == offset, "\(text): \(String(describing: error))")
        }
    }

    @Test func findsDuplicateKeysInLargeObjects() throws {
        let keys = (0..<5_000).map { "\"k\($0)\":\($0)" }
        let object = try JSONParser.parse("{" + keys.joined(separator: ",") + "}")
        #expect(object.members?.count == 5_000)
        #expect(object["k4999"] == 4999)
        for position in [1, 15, 16, 17, 4_999] {
            let text = "{" + keys[0..<position].joined(separator: ",") + ",\"k\(position - 1)\":0}"
            let error = #expect(throws: JSONParseError.self, "duplicate after \(position) members") { try JSONParser.parse(text) }
            #expect(error?.reason == "duplicate key \"k\(position - 1)\" in object")
        }
    }
}
