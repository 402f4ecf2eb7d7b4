import Foundation
import FusionHost
import Testing

/// Several libraries loaded in one process, each with its own features and instances.
@Suite struct SideBySideTests {
    @Test func twoCopiesOfTheExampleLibraryKeepTheirOwnInstances() throws {
        let original = try Support.examplesLibrary()
        let directory = try Support.temporaryDirectory()
        let copy = directory.appendingPathComponent("libFusionExamplesCopy.so").path
        try FileManager.default.copyItem(atPath: original, toPath: copy)

        let first = try HostedLibrary(path: original)
        let second = try HostedLibrary(path: copy)
        #expect(first.summary.features.map(\.name) == second.summary.features.map(\.name))

        let a = try first.create(feature: "counter")
        let b = try second.create(feature: "counter")
        for _ in 0..<3 { try a.send("\"increase\"") }
        try b.send("\"decrease\"")
        #expect(try a.state().value()["value"] == .integer(3))
        #expect(try b.state().value()["value"] == .integer(-1))
        // Destroying one library's instance leaves the other library's alone.
        try a.destroy()
        try b.send("\"decrease\"")
        #expect(try b.state().json == #"{"value":-2,"isReset":false,"alert":null}"#)
    }

    @Test func aFusionKitLibraryAndAHandWrittenCLibraryTogether() async throws {
        let examples = try HostedLibrary(path: Support.examplesLibrary())
        let togglePath = try Support.buildCLibrary(named: "toggle", source: CLibraries.toggle)
        let toggles = try HostedLibrary(path: togglePath)
        #expect(toggles.summary.libraryName == "Toggle")
        #expect(toggles.libraryVersion == "9.9.9")
        #expect(try toggles.feature(named: "toggle")?.input(named: "setLabel")?.fields.map(\.name) == ["label"])

        let counter = try examples.create(feature: "counter")
        let toggle = try toggles.create(feature: "toggle")
        let heard = Recorder<UInt64>()
        try toggle.subscribe { heard.append($0) }

        try counter.send("\"increase\"")
        try toggle.send("\"flip\"")
        try toggle.send(["setLabel": ["label": "łódź 안녕"]])
        try toggle.send("\"flipLater\"")  // changes 20 ms later, on the library's own thread
        #expect(await Support.eventually { heard.values == [1, 2, 3] })
        let state = try toggle.state().value()
        #expect(state["label"] == .string("łódź 안녕"))
        #expect(state["on"] == .bool(false))
        #expect(state["flips"] == .integer(2))
        #expect(try counter.state().version == 1)

        // Each library's errors come with its own names and words.
        let refused = #expect(throws: FusionHostError.self) { try toggle.send("\"jump\"") }
        #expect(
            refused?.failure
                == CallFailure(
                    function: "fk_send", status: .unknownInput, statusName: "FK_ERR_UNKNOWN_INPUT",
                    message: "unknown input \"jump\"; valid inputs: flip, flipLater, setLabel"))
        let wrongLibrary = #expect(throws: FusionHostError.self) { try toggles.create(feature: "counter") }
        #expect(wrongLibrary?.status == .unknownFeature)
    }
}
