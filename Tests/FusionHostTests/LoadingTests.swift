import Foundation
import Testing

@testable import FusionHost

/// Loading: what the host accepts, what it refuses, and why.
@Suite struct LoadingTests {
    @Test func loadsTheExampleLibraryAndReadsItsManifest() throws {
        let library = try HostedLibrary(path: Support.examplesLibrary())
        #expect(library.abiVersion == HostedLibrary.hostABIVersion)
        #expect(library.libraryABIVersion() == 1)
        #expect(library.libraryVersion == library.summary.libraryVersion)
        #expect(library.summary.libraryName == "FusionExamples")
        #expect(library.summary.abiVersion == 1)
        #expect(library.summary.features.map(\.name) == ["counter", "answer", "home", "wifi", "profile"])

        let counter = try #require(try library.feature(named: "counter"))
        #expect(counter.inputs.map(\.name) == ["increase", "decrease", "reset", "show", "alertDismissed"])
        #expect(counter.stateSchema["properties"]?.members?.map(\.key) == ["value", "isReset", "alert"])

        let answer = try #require(try library.feature(named: "answer"))
        let text = try #require(answer.input(named: "answerChanged")?.field(named: "text"))
        #expect(text.type == "string")
        #expect(text.required)
        #expect(try library.feature(named: "nonesuch") == nil)

        // fk_manifest asked again gives the same document the model was read from.
        let manifest = try library.manifest()
        #expect(try JSONParser.parse(library.manifestJSON()) == manifest.json)
        for symbol in EntryPoint.allCases.filter(\.isRequired).map(\.symbol) {
            #expect(library.exports(symbol))
        }
    }

    @Test func theSummaryAndEachFeatureAgreeWithTheWholeManifest() throws {
        let library = try HostedLibrary(path: Support.examplesLibrary())
        #expect(library.exports("fk_manifest_summary") && library.exports("fk_feature_manifest"))
        // Each feature read on its own (fk_feature_manifest) before the whole manifest is.
        let alone = try library.summary.features.map { try #require(try library.feature(named: $0.name)) }
        let manifest = try library.manifest()
        #expect(alone == manifest.features)
        #expect(manifest.summary == library.summary)
        #expect(library.summary.features.map(\.stateVersion) == manifest.features.map(\.stateVersion))
    }

    @Test func refusesAnotherABIVersionNamingBothAndCallingNothingElse() throws {
        let path = try Support.buildCLibrary(named: "wrongversion", source: CLibraries.wrongVersion)
        // Its other functions abort: reaching the `#expect` at all shows none was called.
        let error = #expect(throws: FusionHostError.self) { try HostedLibrary(path: path) }
        #expect(error == .abiMismatch(path: path, library: 999, host: 1))
        let message = try #require(error?.description)
        #expect(message.contains("999"))
        #expect(message.contains("version 1"))
        #expect(message.contains(path))
    }

    @Test func refusesALibraryLackingAnEntryPointByName() throws {
        let path = try Support.buildCLibrary(named: "onlyversion", source: CLibraries.onlyVersion)
        let error = #expect(throws: FusionHostError.self) { try HostedLibrary(path: path) }
        #expect(error == .missingEntryPoint(path: path, symbol: "fk_library_version"))
        #expect(error?.description.contains("does not export fk_library_version") == true)
    }

    @Test func refusesASharedObjectThatIsNotAFusionKitLibrary() throws {
        let path = try Support.buildCLibrary(named: "other", source: CLibraries.notFusionKit)
        let error = #expect(throws: FusionHostError.self) { try HostedLibrary(path: path) }
        #expect(error == .missingEntryPoint(path: path, symbol: "fk_abi_version"))
    }

    @Test func refusesWhatCannotBeLoadedWithDlerrorsWords() throws {
        let missing = "/nonexistent/libNothing.so"
        let error = #expect(throws: FusionHostError.self) { try HostedLibrary(path: missing) }
        guard case .cannotLoad(let path, let reason)? = error else {
            Issue.record("expected cannotLoad, got \(String(describing: error))")
            return
        }
        #expect(path == missing)
        #expect(reason.contains("No such file"))

        // A file that is not a shared object at all.
        let directory = try Support.temporaryDirectory()
        let text = directory.appendingPathComponent("notes.so")
        try "just text".write(to: text, atomically: true, encoding: .utf8)
        let notELF = #expect(throws: FusionHostError.self) { try HostedLibrary(path: text.path) }
        guard case .cannotLoad? = notELF else {
            Issue.record("expected cannotLoad, got \(String(describing: notELF))")
            return
        }
    }

    @Test func refusesAManifestThatIsNotJSON() throws {
        let path = try Support.buildCLibrary(named: "badmanifest", source: CLibraries.toggle, defines: ["BAD_MANIFEST"])
        let error = #expect(throws: FusionHostError.self) { try HostedLibrary(path: path) }
        guard case .invalidManifest(let failing, let reason)? = error else {
            Issue.record("expected invalidManifest, got \(String(describing: error))")
            return
        }
        #expect(failing == path)
        #expect(reason.contains("not JSON"))
    }

    @Test func optionalEntryPointsAreResolvedWhenPresentAndRefusedByNameWhenNot() throws {
        let path = try Support.buildCLibrary(named: "toggle", source: CLibraries.toggle)
        let library = try HostedLibrary(path: path)
        #expect(library.exports("fk_advance_clock"))
        #expect(!library.exports("fk_poll_request"))
        #expect(library.exportedEntryPoints.count == EntryPoint.allCases.filter(\.isRequired).count + 1)

        let toggle = try library.create(feature: "toggle")
        try toggle.advanceClock(byNanoseconds: 1_500_000_000)
        try toggle.advanceClock(by: .milliseconds(500))
        #expect(try toggle.state().json.contains("\"clock\":2000000000"))
        #expect(throws: FusionHostError.missingEntryPoint(path: path, symbol: "fk_poll_request")) {
            try toggle.pollRequest()
        }
        #expect(throws: FusionHostError.missingEntryPoint(path: path, symbol: "fk_create_with_options")) {
            try library.create(feature: "toggle", optionsJSON: "{}")
        }
    }

    /// Every function the header declares has a row in the entry-point table, with as
    /// many parameters, and the table has nothing the header lacks.
    @Test func theEntryPointTableMatchesTheHeader() throws {
        let header = try String(contentsOf: Support.root.appendingPathComponent("include/fusionkit.h"), encoding: .utf8)
        let code = header.replacing(/\/\*[\s\S]*?\*\//, with: "").replacing(/\/\/[^\n]*/, with: "")
        var declared: [String: Int] = [:]
        for match in code.matches(of: /\b(fk_[a-z0-9_]+)\s*\(([^)]*)\)\s*;/) {
            let parameters = match.output.2.trimmingCharacters(in: .whitespacesAndNewlines)
            declared[String(match.output.1)] = parameters == "void" ? 0 : parameters.split(separator: ",").count
        }
        #expect(declared.count >= 19)
        let table = Dictionary(uniqueKeysWithValues: EntryPoint.allCases.map { ($0.symbol, $0.signature.parameters.count) })
        #expect(declared == table)
    }
}
