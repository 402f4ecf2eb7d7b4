import Testing

@testable import FusionKit

/// How many times a probe feature's state was described: its `jsonShape` counts, and
/// nothing but describing the feature reads it in these tests.
private let stateDescriptions = Locked(0)

@JSONCoded

private enum ProbeInput: JSONCoded, Sendable { case poke }

/// Written by hand rather than by `@JSONCoded`, so that describing it can be counted.
private struct ProbeState: JSONCoded, Equatable, Sendable {
    var pokes = 0
    func writeJSON(into writer: inout JSONWriter) { writer.write(["pokes": .integer(pokes)]) }
    init() {}
    init(json: JSONValue) throws(JSONCodingError) { pokes = try Int(json: json["pokes"] ?? .null) }
    static var jsonShape: Shape {
        stateDescriptions.withLock { $0 += 1 }
        return .object(name: "ProbeState", fields: [Shape.Field(name: "pokes", shape: .integer, required: true)])
    }
}

private protocol Probe: Feature where Input == ProbeInput, Action == ProbeInput, State == ProbeState {
    init()
}

extension Probe {
    init(environment: Environment) { self.init() }
    var initialState: State { ProbeState() }
    func transform(_ input: Input, state: State) -> [Action] { [.poke] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> {
        state.pokes += 1
        return .none
    }
}

private struct First: Probe {
    static let name = "first"
    static let summary = "the first"
    static let stateVersion = 2
}

private struct Second: Probe { static let name = "second" }

@Suite(.serialized) struct FusionLibraryTests {
    @Test func summariesDescribeNothingAndEachFeatureIsDescribedOnFirstUseOnly() {
        let library = FusionLibrary(name: "Probes", version: "1.0.0", features: [First.self, Second.self])
        let before = stateDescriptions.withLock { $0 }
        #expect(library.featureSummaries.map(\.name) == ["first", "second"])
        #expect(library.featureSummaries.map(\.stateVersion) == [2, 1])
        let summary = library.manifestSummary(abiVersion: 1)
        #expect(summary["features"]?.elements?.first == ["name": "first", "summary": "the first", "stateVersion": 2])
        #expect(stateDescriptions.withLock { $0 } == before, "listing the features described one")

        #expect(library.feature(named: "first")?.name == "first")
        let afterFirst = stateDescriptions.withLock { $0 }
        #expect(afterFirst > before)
        #expect(library.feature(named: "first")?.name == "first")
        #expect(library.feature(named: "nonesuch") == nil)
        #expect(stateDescriptions.withLock { $0 } == afterFirst, "a feature described twice, or one not asked for")

        // The whole manifest describes the rest; each entry starts with the summary's.
        let manifest = library.manifest(abiVersion: 1)
        #expect(stateDescriptions.withLock { $0 } > afterFirst)
        let entries = manifest["features"]?.elements ?? []
        let listed = summary["features"]?.elements ?? []
        #expect(entries.count == 2 && listed.count == 2)
        for (entry, outline) in zip(entries, listed) {
            #expect(Array((entry.members ?? []).prefix(3)) == (outline.members ?? []))
        }
    }

    @Test func aFeatureAskedForFromManyThreadsAtOnceIsOneFeature() async throws {
        let library = FusionLibrary(name: "Probes", version: "1.0.0", features: [First.self, Second.self])
        let names = await withTaskGroup(of: String?.self) { group in
            for index in 0..<16 {
                group.addTask { library.feature(named: index.isMultiple(of: 2) ? "first" : "second")?.name }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(names.filter { $0 == "first" }.count == 8 && names.filter { $0 == "second" }.count == 8)
        let instance = try #require(library.feature(named: "second")).makeInstance()
        let input: [UInt8] = Array("\"poke\"".utf8)
        let sent = input.withUnsafeBytes { bytes in Result { () throws(FusionError) in try instance.send(json: bytes) } }
        try sent.get()
        #expect(String(decoding: try instance.stateJSON().bytes, as: UTF8.self) == #"{"pokes":1}"#)
        instance.close()
    }
}
