import FusionKit
import Testing

@testable import FusionExamples

/// `@JSONCoded` (the Codable-free coding that Embedded Swift builds need) against the
/// runtime's `Codable` coding, on every example's types: the same bytes written, the same
/// values read, the same shapes for the manifest, and the same error for a bad value.
@Suite struct JSONCodedTests {
    /// The JSON the runtime writes today (`Codable`, through its stream encoder).
    static func codable<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONStreamEncoder().encode(value), as: UTF8.self)
    }

    /// Written alike, read back alike (equal to the value) both ways.
    static func agree<T: JSONCoded & Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try codable(value)
        #expect(value.jsonText == expected, sourceLocation: sourceLocation)
        let parsed = try JSONParser.parse(expected)
        #expect(try T(json: parsed) == value, sourceLocation: sourceLocation)
        #expect(try JSONValueDecoder().decode(T.self, from: parsed) == value, sourceLocation: sourceLocation)
    }

    static func wifiStates() async -> [WiFiSettings.State] {
        let clock = ManualClock()
        let store = Store<WiFiSettings>(
            environment: Environment(clock: clock, random: RandomSource(seed: 7), settings: ["liveScan": .bool(false)]))
        var states = [store.state]
        store.send(.networkTapped(id: "cafe"))
        states.append(store.state)
        store.send(.destinationDismissed)
        store.send(.networkTapped(id: "blob"))
        store.send(.passwordChanged(password: "wrong \"quoted\" \\ password ✓"))
        states.append(store.state)
        store.send(.destinationDismissed)
        store.send(.infoButtonTapped(id: "blob-jr"))
        states.append(store.state)
        store.send(.destinationDismissed)
        store.send(.wifiToggled(isOn: false))
        states.append(store.state)
        store.close()
        return states
    }

    @Test func statesAreWrittenAndReadAsCodableDoes() async throws {
        for value in [-3, 0, Int.max] {
            try Self.agree(Counter.State(value: value, isReset: value == 0, alert: value < 0 ? nil : "The value is \(value)."))
        }
        for state in await Self.wifiStates() {
            try Self.agree(state)
            for network in state.foundNetworks { try Self.agree(network) }
        }
        var profile = ProfileStore.State()
        try Self.agree(profile)
        ProfileStore.reduce(.getPetEntityComplete(ProfileSamples.pet), &profile)
        ProfileStore.reduce(.getFamilyEntityComplete(ProfileSamples.family), &profile)
        ProfileStore.reduce(.getPreSchoolEntityComplete(ProfileSamples.school), &profile)
        ProfileStore.reduce(.getBabyProfileComplete(ProfileSamples.baby), &profile)
        try Self.agree(profile)
        try Self.agree(Home.State())
        try Self.agree(Answer.State())
        for fetch in ProfileStore.Fetch.allCases { #expect(fetch.jsonText == (try Self.codable(fetch))) }
    }

    /// The cases in the order Swift's enum metadata lists them, which is the order
    /// `ShapeRecorder` finds them in: those with values first. `@JSONCoded` keeps the
    /// order they are declared in.
    static func inMetadataOrder(_ shape: Shape) -> Shape {
        switch shape {
        case .taggedUnion(let name, let cases):
            let withValues = cases.filter { !$0.fields.isEmpty || $0.value != nil }
            return .taggedUnion(name: name, cases: withValues + cases.filter { $0.fields.isEmpty && $0.value == nil })
        default: return shape
        }
    }

    @Test func shapesAreTheOnesRecordedFromCodable() {
        #expect(Counter.State.jsonShape == ShapeRecorder.shape(of: Counter.State.self))
        #expect(Self.inMetadataOrder(Counter.Input.jsonShape) == ShapeRecorder.shape(of: Counter.Input.self))
        #expect(Answer.State.jsonShape == ShapeRecorder.shape(of: Answer.State.self))
        #expect(Self.inMetadataOrder(Answer.Input.jsonShape) == ShapeRecorder.shape(of: Answer.Input.self))
        #expect(Home.State.jsonShape == ShapeRecorder.shape(of: Home.State.self))
        #expect(Self.inMetadataOrder(Home.Input.jsonShape) == ShapeRecorder.shape(of: Home.Input.self))
        #expect(WiFiSettings.State.jsonShape == ShapeRecorder.shape(of: WiFiSettings.State.self))
        #expect(Self.inMetadataOrder(WiFiSettings.Input.jsonShape) == ShapeRecorder.shape(of: WiFiSettings.Input.self))
        #expect(Self.inMetadataOrder(WiFiSettings.Destination.jsonShape) == ShapeRecorder.shape(of: WiFiSettings.Destination.self))
        #expect(ProfileStore.State.jsonShape == ShapeRecorder.shape(of: ProfileStore.State.self))
        #expect(Self.inMetadataOrder(ProfileStore.Input.jsonShape) == ShapeRecorder.shape(of: ProfileStore.Input.self))
        #expect(ProfileStore.Fetch.jsonShape == ShapeRecorder.shape(of: ProfileStore.Fetch.self))
    }

    @Test func inputsAreReadAsCodableReadsThem() throws {
        let inputs = [
            #"{"networkTapped":{"id":"blob"}}"#, #"{"wifiToggled":{"isOn":false}}"#, #"{"screenAppeared":{}}"#,
            #"{"passwordChanged":{"password":"blob"}}"#
        ]
        for text in inputs {
            let parsed = try JSONParser.parse(text)
            let viaCodable = try JSONValueDecoder().decode(WiFiSettings.Input.self, from: parsed)
            let viaMacro = try WiFiSettings.Input(json: parsed)
            #expect(String(describing: viaCodable) == String(describing: viaMacro))
            #expect(viaMacro.jsonText == text)
        }
        #expect(try Counter.Input(json: .string("increase")).jsonText == #"{"increase":{}}"#)
    }

    /// The path and the words, for the mistakes a front end makes in a state it gives.
    @Test func badValuesGetTheSameErrors() throws {
        let bad = [
            #"{"isOn":true,"foundNetworks":[{"id":"a","name":7,"isSecured":true,"connectivity":0.5}]}"#,
            #"{"isOn":"yes","foundNetworks":[]}"#,
            #"{"foundNetworks":[]}"#,
            #"{"isOn":true,"foundNetworks":[{"id":"a","isSecured":true,"connectivity":0.5}]}"#,
            #"{"isOn":true,"foundNetworks":{}}"#,
            #"{"isOn":true,"foundNetworks":[],"isScanning":1.5}"#,
            #"[]"#
        ]
        for text in bad {
            let parsed = try JSONParser.parse(text)
            var viaCodable: JSONCodingError?
            do { _ = try JSONValueDecoder().decode(WiFiSettings.State.self, from: parsed) } catch let error as JSONCodingError {
                viaCodable = error
            }
            var viaMacro: JSONCodingError?
            do { _ = try WiFiSettings.State(json: parsed) } catch { viaMacro = error }
            #expect(viaCodable != nil)
            #expect(viaMacro == viaCodable, "\(text)")
        }
    }
}
