import FusionJSON
import Testing

@Suite struct JSONWriterTests {
    @Test func writesCompactJSON() {
        let value: JSONValue = ["a": [1, 2.5, true, nil], "b": "x"]
        #expect(value.jsonText == #"{"a":[1,2.5,true,null],"b":"x"}"#)
        #expect(JSONWriter.serialize(value) == Array(value.jsonText.utf8))
    }

    @Test func escapesWhatJSONRequires() {
        #expect(JSONValue.string("q\" b\\ n\n t\t c\u{01} é").jsonText == #""q\" b\\ n\n t\t c\u0001 é""#)
        #expect(JSONValue.quoted("q\" b\\ n\n t\t c\u{01}\u{08}\u{0C}\r\u{1F} é") == #""q\" b\\ n\n t\t c\u0001\b\f\r\u001f é""#)
    }

    @Test func writesExtremeIntegers() {
        #expect(JSONValue.integer(Int.min).jsonText == "-9223372036854775808")
        #expect(JSONValue.integer(Int.max).jsonText == "9223372036854775807")
        #expect(JSONValue.integer(0).jsonText == "0")
    }

    /// The host's parser kept each number's text; the one parser keeps each number's
    /// value. Integers a library writes (64-bit) come back out digit for digit; other
    /// numbers in their shortest form; an integer beyond 64 bits is a double, which keeps
    /// 17 significant digits (what JavaScript's JSON.parse keeps of it too).
    @Test func keepsMemberOrderAndWritesNumbersInTheirShortestForm() throws {
        let text =
            #"{"z":1,"a":[true,null,-0.5e3,1.0,0.1],"max":9223372036854775807,"min":-9223372036854775808,"big":18446744073709551615,"s":"x\ny\u00e9\ud83d\ude00"}"#
        let value = try JSONParser.parse(text)
        #expect(value.members?.map(\.key) == ["z", "a", "max", "min", "big", "s"])
        #expect(value["max"] == .integer(Int.max))
        #expect(value["big"] == .double(18446744073709551616))  // 2^64, the nearest double
        #expect(value["s"] == .string("x\nyé\u{1F600}"))
        #expect(
            value.jsonText
                == #"{"z":1,"a":[true,null,-500,1,0.1],"max":9223372036854775807,"min":-9223372036854775808,"big":1.8446744073709552e+19,"s":"x\nyé😀"}"#
        )
        // Read back, -0.5e3 is the integer -500: the same number, another case.
        #expect(try JSONParser.parse(value.jsonText).isEquivalent(to: value))
        #expect(try JSONParser.parse(value.prettyText()).isEquivalent(to: value))
        #expect(try JSONParser.parse(value.prettyText()).jsonText == value.jsonText)
    }

    @Test func writesPrettyTextOneMemberPerLine() {
        let value: JSONValue = ["value": 1, "list": [true, [:], []], "nested": ["alert": nil], "empty": [:]]
        #expect(
            value.prettyText() == """
                {
                  "value": 1,
                  "list": [
                    true,
                    {},
                    []
                  ],
                  "nested": {
                    "alert": null
                  },
                  "empty": {}
                }
                """)
        #expect(JSONValue.array([1, 2]).prettyText(indent: 4) == "[\n    1,\n    2\n]")
        #expect(JSONValue.string("a").prettyText() == #""a""#)
    }

    @Test(arguments: [
        JSONValue.string("와이파이 \u{0}\u{1F}"), .double(0.1), .double(-1.5e-7), .double(1e300), .integer(-42),
        ["nested": ["deeper": [[], [:], ""]]]
    ])
    func roundTrips(_ value: JSONValue) throws {
        #expect(try JSONParser.parse(JSONWriter.serialize(value)) == value)
    }
}
