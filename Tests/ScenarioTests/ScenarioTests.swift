import Foundation
import FusionHost
import FusionScenario
import Testing

/// The third runner: `swift test` runs every scenario of the repository through
/// FusionScenario, as `fusion test` and the Python package do, and expects the same
/// verdicts: examples/scenarios and Tests/scenarios/passing pass, Tests/scenarios/failing fail.
///
/// A scenario runs on a manual clock, whose instance runs its effects itself on the
/// calling thread (`fk_advance_clock` settles them exactly), so the scenarios run on the
/// ordinary test runner, in parallel, on the concurrency pool like any test.
@Suite struct ScenarioTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func files(_ folder: String) -> [String] {
        (try? ScenarioFiles.collect([root.appendingPathComponent(folder).path])) ?? []
    }

    /// The examples, and files of forms every runner must take (Tests/scenarios/passing).
    static let passing = files("examples/scenarios") + files("Tests/scenarios/passing")
    static let failing = files("Tests/scenarios/failing")

    static func runner() throws -> ScenarioRunner {
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(
                    SharedLibraryName.forLibrary("FusionExamples")
                ).path)
        }
        candidates.append(root.appendingPathComponent(".build/debug/" + SharedLibraryName.forLibrary("FusionExamples")).path)
        guard let path = candidates.first(where: FileManager.default.fileExists(atPath:)) else {
            throw ScenarioTestError("libFusionExamples not found (looked at \(candidates)); run `swift build --product FusionExamples`")
        }
        return ScenarioRunner(libraries: try LibrarySet([try HostedLibrary(path: path)]))
    }

    @Test func theRepositoryHasScenarios() {
        #expect(Self.passing.count >= 5, "examples/scenarios")
        #expect(Self.failing.count >= 3, "Tests/scenarios/failing")
    }

    static func run(_ file: String) async throws -> ScenarioResult {
        try runner().run(file: file)
    }

    @Test(arguments: passing) func passes(_ file: String) async throws {
        let result = try await Self.run(file)
        #expect(result.passed, "\(file):\n\(result.failures.joined(separator: "\n"))")
    }

    @Test(arguments: failing) func failsAsWritten(_ file: String) async throws {
        let result = try await Self.run(file)
        #expect(!result.passed, "\(file) was written to fail, and passed")
        #expect(!result.failures.contains { $0.contains("cannot read the scenario") }, "\(file) should fail a step, not be unreadable")
    }
}

struct ScenarioTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
