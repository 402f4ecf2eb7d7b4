import ArgumentParser
import FusionHost

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fusion run [LIB] FEATURE`: an interactive session with one instance.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a feature interactively: type inputs, see the state after each.",
        usage: "fusion run [LIB] FEATURE [--state FILE]",
        discussion: """
            \(Fusion.inputHelp)

            After each input the new state is printed with its version; fields that \
            changed stand out. Changes made later by the feature's effects (a timer, a \
            request) are printed when they happen, marked "⟳ vN (from an effect)". A \
            refused input prints the library's explanation and changes nothing.

            Commands: :state (the whole state), :diff (what the last input changed, field \
            by field), :help, :quit (or Ctrl-D).

            In a terminal: left/right, Home/End, backspace and the usual Ctrl keys edit \
            the line; up/down walk the history; Tab completes input names and field names. \
            When stdin is not a terminal, inputs are read one per line, without prompts. \
            Colour is used when stdout is a terminal and NO_COLOR is unset.

            \(Fusion.libraryHelp)

            \(ExitStatus.help)
            """)

    @Argument(help: ArgumentHelp("The library (optional), then the feature.", valueName: "lib-or-feature"))
    var words: [String] = []

    @Option(name: .customLong("state"), help: ArgumentHelp("Start from the state in this file, if it exists, and save the state to it when the session ends.", valueName: "file"))
    var stateFile: String?

    func validate() throws {
        let rest = LibraryChoice.split(words).rest
        if rest.isEmpty { throw ValidationError("missing FEATURE") }
        if rest.count > 1 { throw ValidationError("run takes one FEATURE; send inputs with `fusion send`, or type them in the session") }
    }

    func run() throws {
        let (paths, rest) = LibraryChoice.split(words)
        guard let featureName = rest.first else { throw ValidationError("missing FEATURE") }
        let (library, feature) = try LibraryChoice.load(paths).feature(named: featureName)
        let saved = try stateFile.flatMap { (file) throws(CLIError) in try StateFile.load(file, feature: feature.name) }
        let instance: HostedInstance
        do {
            instance = try library.create(feature: feature.name, stateJSON: saved)
        } catch {
            if error.status == .invalidState, let stateFile {
                throw CLIError(.stateFile, "state file \(stateFile) does not fit feature \"\(feature.name)\": \(error)")
            }
            throw CLIError(error)
        }
        let session = Session(library: library, feature: feature, instance: instance)
        session.run()
        let final = try? instance.state()
        try? instance.destroy()
        if let stateFile, let final { try StateFile.save(stateFile, feature: feature.name, state: final) }
    }
}
