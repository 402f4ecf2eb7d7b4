import Testing

@testable import FusionKit

private struct Network: Codable, Equatable {
    var id: String
    var name: String
    var isSecured: Bool
    var connectivity: Double
    var note: String?
}

private enum Destination: Codable, Equatable {
    case connect(id: String, password: String)
    case detail(id: String)
    case none
}

private struct Screen: Codable, Equatable {
    var networks: [Network]
    var destination: Destination?
    var counts: [String: Int]
    var level: UInt8
}

@Suite struct CodableTests {
    fileprivate let screen = Screen(
        networks: [Network(id: "a", name: "Home", isSecured: true, connectivity: 0.5, note: nil)],
        destination: .connect(id: "a", password: "blob"), counts: ["x": 1], level: 3)

    @Test func encodesFieldsInOrderWithNullForAbsentOptionals() throws {
        let text = String(decoding: try JSONValueEncoder().encodeBytes(screen), as: UTF8.self)
        #expect(
            text
                == #"{"networks":[{"id":"a","name":"Home","isSecured":true,"connectivity":0.5,"note":null}],"destination":{"connect":{"id":"a","password":"blob"}},"counts":{"x":1},"level":3}"#
        )
    }

    @Test func roundTrips() throws {
        let value = try JSONValueEncoder().encode(screen)
        #expect(try JSONValueDecoder().decode(Screen.self, from: value) == screen)
    }

    @Test func decodesMissingOptionalsAsNil() throws {
        let value = try JSONParser.parse(#"{"id":"a","name":"b","isSecured":false,"connectivity":1}"#)
        #expect(try JSONValueDecoder().decode(Network.self, from: value).note == nil)
    }

    @Test(arguments: [
        (
            #"{"networks":[{"id":"a","name":"b","isSecured":"yes","connectivity":1}],"counts":{},"level":1}"#,
            "at $.networks[0].isSecured: expected a boolean, found a string"
        ),
        (#"{"networks":[],"counts":{},"level":300}"#, "at $.level: 300 does not fit in UInt8"),
        (#"{"networks":[],"counts":{"x":1.5},"level":1}"#, "at $.counts.x: expected an integer for Int, found 1.5"),
        (#"{"networks":[],"counts":{}}"#, "missing field \"level\""),
        (#"{"networks":{},"counts":{},"level":1}"#, "at $.networks: expected an array, found an object")
    ])
    func explainsWhereDecodingFailed(_ text: String, _ message: String) throws {
        let value = try JSONParser.parse(text)
        #expect {
            _ = try JSONValueDecoder().decode(Screen.self, from: value)
        } throws: { error in
            (error as? JSONCodingError)?.description == message
        }
    }

    @Test func refusesNumbersJSONCannotHold() {
        #expect(throws: JSONCodingError.self) {
            _ = try JSONValueEncoder().encode(Network(id: "", name: "", isSecured: false, connectivity: .nan))
        }
    }
}
