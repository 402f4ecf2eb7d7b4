import FusionJSON
import Testing

@Suite struct JSONValueTests {
    /// What scenario files and host requests are matched with (the host's `==` before
    /// the codecs were merged): member order and number spelling do not count.
    @Test func equivalenceIgnoresMemberOrderAndNumberSpelling() throws {
        #expect(try JSONParser.parse(#"{"a":1,"b":2}"#).isEquivalent(to: JSONParser.parse(#"{"b":2,"a":1.0}"#)))
        #expect(try JSONParser.parse("[1e0, -0, 2.50]").isEquivalent(to: JSONParser.parse("[1, 0, 2.5]")))
        #expect(try !JSONParser.parse("9007199254740993").isEquivalent(to: JSONParser.parse("9007199254740992")))
        #expect(try !JSONParser.parse("9007199254740993").isEquivalent(to: JSONParser.parse("9007199254740992.0")))
        #expect(try !JSONParser.parse(#"{"a":1}"#).isEquivalent(to: JSONParser.parse(#"{"a":1,"b":2}"#)))
        #expect(try !JSONParser.parse(#"{"a":1,"b":2}"#).isEquivalent(to: JSONParser.parse(#"{"a":1,"c":2}"#)))
        #expect(try !JSONParser.parse("[1,2]").isEquivalent(to: JSONParser.parse("[2,1]")))
        #expect(!JSONValue.string("1").isEquivalent(to: 1))
        #expect(!JSONValue.null.isEquivalent(to: false))
    }

    /// `==` is structural, as FusionKit's tests and the stream encoder's checks need.
    @Test func equalityComparesStructure() {
        #expect(JSONValue.integer(1) != .double(1))
        let ab: JSONValue = ["a": 1, "b": 2]
        #expect(ab != ["b": 2, "a": 1])
        #expect(ab.isEquivalent(to: ["b": 2, "a": 1]))
        #expect(["a": [1, 2.5]] == JSONValue.object([JSONMember("a", .array([.integer(1), .double(2.5)]))]))
    }

    @Test func readsValuesOfTheKindAsked() throws {
        let value = try JSONParser.parse(#"{"s":"x","b":true,"i":3,"d":2.5,"w":3.0,"a":[1],"o":{"k":null}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["b"]?.boolValue == true)
        #expect(value["i"]?.integerValue == 3)
        #expect(value["w"]?.integerValue == nil)  // 3.0 is written as a double
        #expect(value["i"]?.numberValue == 3)
        #expect(value["d"]?.numberValue == 2.5)
        #expect(value["a"]?.elements == [1])
        #expect(value["o"]?.members == [JSONMember("k", nil)])
        #expect(value["missing"] == nil)
        #expect(value["s"]?["k"] == nil)
        #expect(value["s"]?.integerValue == nil && value["i"]?.stringValue == nil && value["a"]?.members == nil)
    }

    @Test func namesKindsForMessages() {
        let kinds: [(JSONValue, String)] = [
            (nil, "null"), (true, "a boolean"), (1, "a number"), (1.5, "a number"), ("x", "a string"), ([], "an array"), ([:], "an object")
        ]
        for (value, words) in kinds { #expect(value.kindDescription == words) }
    }
}
