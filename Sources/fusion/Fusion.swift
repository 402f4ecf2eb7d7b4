import ArgumentParser
import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The shell client: drive any FusionKit library's features from a terminal or a script.
@main
struct Fusion: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fusion",
        abstract: "Drive the features of a FusionKit library from a shell.",
        discussion: """
            A feature is the logic of a screen; a library (a .so exporting the C ABI of \
            include/fusionkit.h) holds one or more. fusion loads a library at run time and \
            talks to it only through that ABI.

            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """,
        subcommands: [
            Inspect.self, Run.self, Send.self, Serve.self, Test.self, Replay.self, New.self, Types.self, ExitCodes.self,
            ReplayCheck.self
        ])

    static let libraryHelp = """
        LIB is optional and comes first; several may be given, loaded side by side. A \
        word starting with "/", "./" or "../", or ending in ".so", is a library; any \
        other word is a feature name. A feature that two libraries both have is named \
        with its library's name: Chores/counter. Without LIB, fusion uses the library \
        $FUSIONKIT_LIBRARY names, else libFusionExamples.so next to the fusion executable.
        """

    static let inputHelp = """
        INPUTS are written as `case field=value …` (increase, answerChanged text=hello) \
        or as raw JSON ('{"answerChanged":{"text":"hi"}}'). A value is read as JSON when \
        it parses and as a string otherwise; a field typed as a string takes the text as \
        it is; 'single quotes' always make a string.
        """

    /// Runs a command, and reports the client's own errors as one line on stderr with
    /// the exit code of their kind (argument errors keep swift-argument-parser's 64).
    static func main() async {
        // Swift's CommandLine.arguments repairs bytes that are not UTF-8 (U+FFFD): an input
        // or a name would then be sent as other text than was typed.
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
            Fusion.report(CLIError(.badInput, "argument \(index) is not UTF-8 text, which is all fusion reads; nothing was done"))
            exitProcess(ExitStatus.badInput.rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Fusion.report(error)
            exitProcess(error.code.rawValue)
        } catch {
            exit(withError: error)
        }
        exitProcess(ExitStatus.success.rawValue)
    }

    static func report(_ error: CLIError) {
        let style = Style.for(descriptor: STDERR_FILENO)
        Terminal.write(style.error("error:") + " " + error.message + "\n", to: STDERR_FILENO)
    }
}
