import Testing

@testable import FusionKit

private struct Inner: Codable, Equatable {
    var a: Int
    var b: [String]
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case labelled(Inner)
    case pair(Int, String)
    case empty
}

private struct Everything: Codable, Equatable {
    var text = "quote \" and é and \u{1}"
    var int = -42
    var big: UInt64 = 18_000_000_000_000_000_000
    var small: Int8 = -3
    var flag = true
    var real = 0.1
    var whole = 3.0
    var missing: String? = nil
    var present: Int? = 5
    var list: [Inner] = [Inner(a: 1, b: []), Inner(a: 2, b: ["x", "y"])]
    var nested: [[Int]] = [[], [1], [1, 2]]
    var map: [String: Int] = ["k": 1]
    var shapes: [Shape] = [.circle(radius: 1.5), .labelled(Inner(a: 3, b: ["z"])), .pair(1, "one"), .empty]
    var maybeShape: Shape? = nil

    init(real: Double = 0.1, missing: String? = nil, maybeShape: Shape? = nil) {
        self.real = real
        self.missing = missing
        self.maybeShape = maybeShape
    }
}

/// Writes into an earlier container after a later one: legal for Encoder, impossible
/// to stream, so the stream must fall back and still give the same bytes.
private struct OutOfOrderWriter: Encodable {
    enum Keys: String, CodingKey { case first, second, third }
    func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: Keys.self)
        var first = root.nestedContainer(keyedBy: Keys.self, forKey: .first)
        var second = root.nestedUnkeyedContainer(forKey: .second)
        try second.encode(1)
        try first.encode("late", forKey: .third)
        try root.encode(true, forKey: .third)
    }
}

/// Uses a super encoder.
private class Base: Encodable {
    var base = 1
}

private final class Derived: Base {
    var derived = 2
    enum Keys: String, CodingKey { case derived }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(derived, forKey: .derived)
        try super.encode(to: container.superEncoder())
    }
}

@Suite struct StreamEncoderTests {
    func same<T: Encodable>(_ value: T) throws {
        let tree = String(decoding: try JSONValueEncoder().encodeBytes(value), as: UTF8.self)
        let stream = String(decoding: try JSONStreamEncoder().encode(value), as: UTF8.self)
        #expect(stream == tree)
    }

    @Test func writesWhatTheTreeEncoderWrites() throws {
        try same(Everything())
        try same(Everything(missing: "here", maybeShape: .pair(2, "two")))
        try same([Everything(), Everything()])
        try same(Shape.labelled(Inner(a: 1, b: [])))
        try same("top-level string")
        try same(42)
        try same([String: [Int]]())
    }

    @Test func writesEveryIntegerAsSwiftDoes() throws {
        // Every digit count and its edges (the writer counts digits before writing them).
        var values = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, Int.max, Int.min, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        var random = SystemRandomNumberGenerator()
        values += (0..<2_000).map { _ in Int.random(in: .min ... .max, using: &random) >> Int.random(in: 0..<63, using: &random) }
        for value in values {
            #expect(String(decoding: try JSONStreamEncoder().encode(value), as: UTF8.self) == String(value))
            #expect(String(decoding: try JSONStreamEncoder().encode([value, -1]), as: UTF8.self) == "[\(value),-1]")
        }
    }

    @Test func fallsBackForOutOfOrderWrites() throws {
        try same(OutOfOrderWriter())
        try same(Derived())
    }

    @Test func unlabeledPayloadsAreWrittenBare() throws {
        let text = String(decoding: try JSONStreamEncoder().encode(Shape.labelled(Inner(a: 1, b: ["q"]))), as: UTF8.self)
        #expect(text == #"{"labelled":{"a":1,"b":["q"]}}"#)
    }

    @Test func refusesNonFiniteNumbersWithThePath() {
        #expect {
            _ = try JSONStreamEncoder().encode(Everything(real: .infinity))
        } throws: { error in
            (error as? JSONCodingError)?.description == "at $.real: inf cannot be written as JSON"
        }
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let value = Everything(missing: "m", maybeShape: .circle(radius: 2))
        let decoded = try JSONValueDecoder().decode(Everything.self, from: try JSONParser.parse(try JSONStreamEncoder().encode(value)))
        #expect(decoded == value)
    }
}
