import ArgumentParser
import FusionHost
import FusionScenario

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion test [LIB…] PATH…`: runs scenario files, the features' Input/State specs.
struct Test: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run scenarios (*.scenario.json): Input/State specs, step by step, through the C ABI.",
        usage: "fusion test [LIB…] FILE|DIR…",
        discussion: """
            Prints PASS or FAIL with each scenario's name, the failing step with each \
            difference by its path in the state, and closes with "N passed, N failed". \
            Folders are searched for *.scenario.json. The format is docs/scenarios.md.

            LIB is optional and comes first: words ending in .so (or .dylib, .dll) are \
            libraries; without one, the default library is used (see fusion --help).

            EXIT STATUS
              0   every scenario passed
              1   a scenario failed (or could not be read)
              4   the library cannot be used
              64  bad command line
            (fusion help exit-codes: every command's statuses)
            """)

    @Argument(help: ArgumentHelp("Libraries (optional), then scenario files or folders.", valueName: "lib-or-path"))
    var words: [String] = []

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give scenario files or folders, e.g. fusion test examples/scenarios") }
    }

    private var libraries: [String] { Array(words.prefix(while: SharedLibraryName.looksLikeLibrary)) }
    private var paths: [String] { Array(words.dropFirst(libraries.count)) }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        let runner = ScenarioRunner(libraries: try LibraryChoice.load(libraries, limits: plugin.limits))
        let files: [String]
        do throws(ScenarioFileError) { files = try ScenarioFiles.collect(paths) } catch { throw CLIError(.usage, error.description) }
        if files.isEmpty { throw CLIError(.usage, "no *.scenario.json in \(paths.joined(separator: ", "))") }
        let style = Style.for(descriptor: STDOUT_FILENO)
        var passed = 0
        var failed = 0
        for file in files {
            let result = runner.run(file: file)
            let verdict = result.passed ? style.bold("PASS") : style.error("FAIL")
            var text = "\(verdict) \(file): \(result.name)\n"
            for line in result.failures { text += "  \(line)\n" }
            Terminal.write(text, to: STDOUT_FILENO)
            if result.passed { passed += 1 } else { failed += 1 }
        }
        Terminal.write("\(passed) passed, \(failed) failed\n", to: STDOUT_FILENO)
        if failed > 0 { exitProcess(ExitStatus.failure.rawValue) }
    }
}
