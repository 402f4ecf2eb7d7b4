import Testing

@testable import FusionKit

// Each type is used by one test only: plans are learnt once per type, per process.

private struct Reading: Codable, Equatable {
    var id: String
    var level: Double
    var ok: Bool
    var count: Int
    var note: String?
    var score: Double?
    var rank: Int?
    var seen: Bool?
}

private struct Station: Codable, Equatable {
    var name: String
    var readings: [Reading]
    var latest: Reading?
    var tags: [String]
    var limits: [String: Int]
    var kind: Kind
    var small: Int8
    enum Kind: String, Codable { case north, south }
}

private struct Renamed: Codable {
    var firstName: String
    var age: Int
    enum CodingKeys: String, CodingKey {
        case firstName = "first_name"
        case age
    }
}

private struct Doubled: Encodable {
    var value: Int
    enum CodingKeys: String, CodingKey { case value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value * 2, forKey: .value)
    }
}

private struct Skipping: Encodable {
    var shown: Int
    var hidden: Int
    enum CodingKeys: String, CodingKey { case shown }
}

private struct WithComputed: Encodable {
    var base: Int
    enum CodingKeys: String, CodingKey { case base, twice }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(base, forKey: .base)
        try container.encode(base * 2, forKey: .twice)
    }
}

private struct Nothing: Codable {}

private final class Box: Codable {
    var inside = 1
}

private struct Holder: Encodable {
    var box = Box()
    var items: [Item] = []
    var extra: Item?
}

private struct Item: Codable {
    var label: String
    var weight: Double
}

private struct Counting: Encodable {
    var n: Int
    enum CodingKeys: String, CodingKey { case n }
    func encode(to encoder: any Encoder) throws {
        countingCalls.withLock { countingCalls.count += 1 }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(n, forKey: .n)
    }
}

private final class CallCount: @unchecked Sendable {
    let lock = ConditionLock()
    var count = 0
    func withLock<R>(_ body: () -> R) -> R { lock.withLock(body) }
}
private let countingCalls = CallCount()

private struct Measured: Codable {
    var label: String
    var value: Double
}

private struct Gauge: Codable {
    var label: String
    var value: Double
}

private func tree<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try JSONValueEncoder().encodeBytes(value), as: UTF8.self)
}

private func stream<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try JSONStreamEncoder().encode(value), as: UTF8.self)
}

/// Encodes each value twice (the first encode of a type records, later ones use the
/// plan) and checks both against the tree encoder.
private func expectSameAsTree<T: Encodable>(_ values: [T], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for value in values {
        let expected = try tree(value)
        for pass in ["first", "second"] {
            let written = try stream(value)
            #expect(written == expected, "\(pass) encode:\n\(written)\nexpected:\n\(expected)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct EncodingPlanTests {
    @Test func plainStructsAreWrittenFromMemoryWithTheSameBytes() throws {
        let reading = Reading(
            id: "a\"b\\c\u{7}é", level: 0.15000000000000002, ok: true, count: -7, note: nil, score: 2.5, rank: nil, seen: false)
        let station = Station(
            name: "S",
            readings: [reading, Reading(id: "x", level: 1e-7, ok: false, count: Int.max, note: "n", score: nil, rank: 3, seen: nil)],
            latest: reading, tags: ["t1", ""], limits: ["a": 1], kind: .south, small: -3)
        try expectSameAsTree([station, Station(name: "", readings: [], latest: nil, tags: [], limits: [:], kind: .north, small: 0)])
        let plan = try #require(EncodingPlans.shared.plan(for: Station.self))
        #expect(!plan.hasUnresolvedParts)
    }

    @Test func customEncodingKeepsItsOwnOutput() throws {
        try expectSameAsTree([Renamed(firstName: "Ada", age: 36), Renamed(firstName: "Bo", age: 2)])
        #expect(try stream(Renamed(firstName: "Ada", age: 36)) == #"{"first_name":"Ada","age":36}"#)
        try expectSameAsTree([Doubled(value: 3), Doubled(value: 0), Doubled(value: -5)])
        #expect(try stream(Doubled(value: 21)) == #"{"value":42}"#)
        try expectSameAsTree([Skipping(shown: 1, hidden: 2), Skipping(shown: 3, hidden: 4)])
        try expectSameAsTree([WithComputed(base: 1), WithComputed(base: 5)])
        try expectSameAsTree([Nothing(), Nothing()])
        try expectSameAsTree([Holder(), Holder(items: [Item(label: "i", weight: 0.25)], extra: Item(label: "e", weight: 3))])
    }

    @Test func structsFirstMetEmptyArePlannedOnceSeen() throws {
        struct Empty: Encodable {
            var list: [Measured] = []
            var maybe: Measured?
        }
        try expectSameAsTree([Empty()])
        #expect(try #require(EncodingPlans.shared.plan(for: Empty.self)).hasUnresolvedParts)
        try expectSameAsTree([Empty(list: [Measured(label: "m", value: 0.5)], maybe: nil)])
        try expectSameAsTree([Empty(list: [Measured(label: "m", value: 0.5)], maybe: Measured(label: "x", value: -2))])
        #expect(try !#require(EncodingPlans.shared.plan(for: Empty.self)).hasUnresolvedParts)
    }

    @Test func recordingCallsEncodeToNoMoreThanEncodingDoes() throws {
        let before = countingCalls.withLock { countingCalls.count }
        _ = try stream(Counting(n: 1))
        let afterFirst = countingCalls.withLock { countingCalls.count }
        #expect(afterFirst - before == 1)
        #expect(try stream(Counting(n: 2)) == #"{"n":2}"#)
        // Planned: later values are read from memory.
        #expect(countingCalls.withLock { countingCalls.count } == afterFirst)
    }

    @Test func nonFiniteNumbersStillFailWithThePath() throws {
        _ = try stream([Gauge(label: "fine", value: 1.5)])
        #expect {
            _ = try JSONStreamEncoder().encode([Gauge(label: "bad", value: .nan)])
        } throws: { error in
            (error as? JSONCodingError)?.description == "at $[0].value: nan cannot be written as JSON"
        }
    }
}

// Cases from a review of the plans and the stream: each once wrote something other than
// the tree encoder, or never returned.

private final class Referenced: Codable {
    var id = 7
}

private struct WeakHolder: Encodable {
    weak var object: Referenced?
    var n: Int
}

private struct UnownedHolder: Encodable {
    unowned var object: Referenced
    var n: Int
}

private struct Tree: Codable {
    var name: String
    var left: [Tree]
    var right: [Tree]
}

private struct SortsItsItems: Encodable {
    var items: [Int]
    enum CodingKeys: String, CodingKey { case items }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items.sorted(), forKey: .items)
    }
}

private struct Pair: Codable {
    var p: Int
    var q: String
}

private struct Shifted: Encodable {
    var level: Int8
    var pair: Pair
    enum CodingKeys: String, CodingKey { case level, pair }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(level &+ 1, forKey: .level)
        try container.encode(Pair(p: pair.p * 10, q: pair.q.uppercased()), forKey: .pair)
    }
}

private struct Unsigned: Codable {
    var u: UInt
    var maybe: UInt?
}

private struct AskedTwice: Encodable {
    enum Keys: String, CodingKey { case a, b }
    enum Inner: String, CodingKey { case x }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var nested = container.nestedContainer(keyedBy: Inner.self, forKey: .a)
        try nested.encode(1, forKey: .x)
        var again = encoder.container(keyedBy: Keys.self)
        try again.encode(2, forKey: .b)
    }
}

private struct SingleThenKeyed: Encodable {
    enum Keys: String, CodingKey { case k }
    func encode(to encoder: any Encoder) throws {
        _ = encoder.singleValueContainer()
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .k)
    }
}

private struct HoldsSingleThenKeyed: Encodable {
    var a = 0
    var child = SingleThenKeyed()
}

private struct DuplicateKey: Encodable {
    enum Keys: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .b)
        try container.encode(3, forKey: .a)
    }
}

private struct SwallowsErrors: Encodable {
    var d: Double
    var n: Int
    enum Keys: String, CodingKey { case d, n }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try? container.encode(d, forKey: .d)
        try container.encode(n, forKey: .n)
    }
}

private struct ReadsItsPath: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.codingPath.count)
    }
}

private struct HoldsPathReader: Encodable {
    var p = ReadsItsPath()
}

private struct Refuses: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: encoder.codingPath, debugDescription: "refused"))
    }
}

private struct HoldsRefuser: Encodable {
    var list = [Refuses()]
}

@Suite struct EncodingPlanReviewTests {
    @Test func weakAndUnownedPropertiesKeepTheirEncodeTo() throws {
        var object: Referenced? = Referenced()
        try expectSameAsTree([WeakHolder(object: object, n: 1), WeakHolder(object: object, n: 2)])
        let holder = UnownedHolder(object: object!, n: 3)
        try expectSameAsTree([holder])
        object = nil
        try expectSameAsTree([WeakHolder(object: nil, n: 4)])
    }

    @Test(.timeLimit(.minutes(1))) func recursiveTypesArePlannedOnce() throws {
        let leaf = Tree(name: "leaf", left: [], right: [])
        try expectSameAsTree([Tree(name: "r", left: [], right: []), Tree(name: "r", left: [leaf], right: [leaf, leaf])])
        try expectSameAsTree([Tree(name: "r", left: [Tree(name: "m", left: [leaf], right: [])], right: [])])
    }

    @Test func transformedMembersAreCaughtByTheReplay() throws {
        try expectSameAsTree([SortsItsItems(items: [3, 1, 2]), SortsItsItems(items: [9, 8])])
        try expectSameAsTree([Shifted(level: 1, pair: Pair(p: 1, q: "q")), Shifted(level: 5, pair: Pair(p: 2, q: "z"))])
    }

    @Test func unsignedBeyondIntMaxIsWrittenAsTheTreeWritesIt() throws {
        try expectSameAsTree([Unsigned(u: .max, maybe: .max), Unsigned(u: 1, maybe: nil)])
        try expectSameAsTree([[UInt.max], [1]])
    }

    @Test func containersAskedForAgainWriteWhereTheTreeDoes() throws {
        try expectSameAsTree([AskedTwice()])
        #expect(try stream(AskedTwice()) == #"{"a":{"x":1},"b":2}"#)
        try expectSameAsTree([HoldsSingleThenKeyed()])
    }

    @Test func aKeyWrittenTwiceKeepsTheLastValue() throws {
        try expectSameAsTree([DuplicateKey()])
        #expect(try stream(DuplicateKey()) == #"{"a":3,"b":2}"#)
    }

    @Test func swallowedErrorsStillSendTheValueToTheTree() throws {
        try expectSameAsTree([SwallowsErrors(d: .nan, n: 1), SwallowsErrors(d: 1.5, n: 2)])
    }

    @Test func codingPathsAreThoseOfTheTree() throws {
        try expectSameAsTree([HoldsPathReader()])
        #expect(throws: (any Error).self) { _ = try JSONStreamEncoder().encode(HoldsRefuser()) }
        var streamError = ""
        var treeError = ""
        do { _ = try JSONStreamEncoder().encode(HoldsRefuser()) } catch { streamError = "\(error)" }
        do { _ = try JSONValueEncoder().encodeBytes(HoldsRefuser()) } catch { treeError = "\(error)" }
        #expect(streamError == treeError)
        #expect(streamError.contains("list"))
    }
}

private struct Labelled: Codable, Equatable {
    var label: String
    var scores: [String: Int]
}

@Suite struct StateDiffTextTests {
    @Test func canonicallyEquivalentStringsStillGiveAPatch() throws {
        // "é" as one scalar, then as "e" and a combining accent: equal by ==, not as JSON.
        let patch = try StateDiff.patch(from: Labelled(label: "caf\u{e9}", scores: [:]), to: Labelled(label: "cafe\u{301}", scores: [:]))
        #expect(patch == [["op": "replace", "path": "/label", "value": "cafe\u{301}"]])
    }

    @Test func keysWithSlashesAndTildesAreEscapedScalarByScalar() throws {
        let old = Labelled(label: "x", scores: ["a/\u{301}": 1, "~\u{301}": 1])
        var new = old
        new.scores["a/\u{301}"] = 2  // the same dictionary storage: its keys in the same order
        let patch = try StateDiff.patch(from: old, to: new)
        #expect(patch.count == 1)
        #expect(patch.first?["path"] == .string("/scores/a~1\u{301}"))
    }
}
