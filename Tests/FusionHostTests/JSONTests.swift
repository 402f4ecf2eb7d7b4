import FusionHost
import Testing

@Suite struct JSONTests {
    @Test func keepsMemberOrderAndNumberText() throws {
        let text = #"{"z":1,"a":[true,null,-0.5e3],"big":18446744073709551615,"s":"x\ny\u00e9\ud83d\ude00"}"#
        let value = try JSONParser.parse(text)
        #expect(value.objectValue?.map(\.key) == ["z", "a", "big", "s"])
        #expect(value["big"] == .number("18446744073709551615"))
        #expect(value["s"] == .string("x\nyé\u{1F600}"))
        #expect(value.jsonText == #"{"z":1,"a":[true,null,-0.5e3],"big":18446744073709551615,"s":"x\nyé😀"}"#)
        #expect(try JSONParser.parse(value.prettyText()) == value)
    }

    @Test func refusesWhatIsNotJSONSayingWhere() {
        for (text, offset) in [("", 0), ("{\"a\":}", 5), ("[1,]", 3), ("01", 1), ("\"open", 5), ("{\"a\":1,\"a\":2}", 7), ("tru", 3), ("1 2", 2)] {
            let error = #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
            #expect(error?.offset == offset, "\(text): \(String(describing: error))")
        }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test func equalityIgnoresMemberOrderAndNumberSpelling() throws {
        #expect(try JSONParser.parse(#"{"a":1,"b":2}"#) == JSONParser.parse(#"{"b":2,"a":1.0}"#))
        #expect(try JSONParser.parse("9007199254740993") != JSONParser.parse("9007199254740992"))
    }
}
