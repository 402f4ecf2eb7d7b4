import ArgumentParser
import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion send [LIB] FEATURE INPUT…`: one shot, for scripts.
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send inputs to a feature in order and print the resulting state.",
        usage: "fusion send [LIB] FEATURE [INPUT…] [--state FILE] [--json] [--wait SECONDS]",
        discussion: """
            \(Fusion.inputHelp) On the command line each word is an input, and a \
            field=value word adds a field to the input before it:

              fusion send counter increase increase
              fusion send answer answerChanged text=hello submitTapped --wait 1
              fusion send counter --state c.json increase   # again: it counts on

            The inputs are all applied or the command fails: if one is refused, the error \
            names it, nothing is printed and the state file is left as it was.

            With --state FILE the feature starts from the state saved there (when the file \
            exists) and the new state is saved back, as {"feature":…,"version":…,"state":{…}}, \
            the same document --json prints. Without --json, the state alone is printed, \
            as JSON.

            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """)

    // ArgumentParser's declarations: each command states its own options, in one shape.
    @Argument(help: ArgumentHelp("The library (optional), the feature, then the inputs.", valueName: "lib-feature-inputs"))
    var words: [String] = []

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp("Start from the state in this file, if it exists, and save the new state to it.", valueName: "file"))
    var stateFile: String?

    @Flag(help: "Print {\"feature\",\"version\",\"state\"} as one line of JSON.")
    var json = false

    // Unconditional: `--wait -1` is a value out of range (said so), not a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "After the inputs, wait this long for their effects (e.g. a timer) before reading the state.", valueName: "seconds"))
    var wait: Double?

    func validate() throws {
        if LibraryChoice.split(words).rest.isEmpty { throw ValidationError("missing FEATURE") }
        if let wait, !(wait >= 0 && wait <= 3600) { throw ValidationError("--wait takes seconds from 0 to 3600") }
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        let (paths, rest) = LibraryChoice.split(words)
        guard let featureName = rest.first else { throw ValidationError("missing FEATURE") }
        let (library, feature) = try LibraryChoice.load(paths, limits: plugin.limits).feature(named: featureName)

        // Every input is read before any is sent: a typo in the third changes nothing.
        let written: [InputSyntax.Written]
        do {
            written = try InputSyntax.parse(words: Array(rest.dropFirst()))
        } catch {
            throw CLIError(.badInput, error.message)
        }
        var inputs: [(label: String, json: String)] = []
        for (position, input) in written.enumerated() {
            let label = "input \(position + 1) (\(Self.label(input)))"
            do {
                inputs.append((label, try InputSyntax.json(for: input, in: feature)))
            } catch {
                throw CLIError(.badInput, "\(label): \(error.message)")
            }
        }

        let saved = try stateFile.flatMap { (file) throws(CLIError) in try StateFile.load(file, feature: feature.name) }
        let restoring = try StateFile.options(for: saved, from: stateFile, in: library, feature: feature)
        // Options only when the state needs them, so that libraries without them still work.
        let instance = try StateFile.create(
            saved, from: stateFile, in: library, feature: feature,
            options: restoring.count > 1 ? .object(restoring) : nil)
        defer { try? instance.destroy() }

        for input in inputs {
            do {
                try instance.send(input.json)
            } catch {
                throw CLIError(error, input: input.label)
            }
        }
        if let wait {
            var pause = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - wait.rounded(.down)) * 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
        }

        let state: InstanceState
        do {
            state = try instance.state()
        } catch {
            throw CLIError(error)
        }
        if let stateFile { try StateFile.save(stateFile, feature: feature, state: state) }
        if json {
            Terminal.write(try StateFile.document(feature: feature, state: state).jsonText + "\n")
        } else {
            let value = (try? state.value()) ?? .string(state.json)
            let interactive = Terminal.isTerminal(STDOUT_FILENO)
            let width = interactive ? Terminal.columns() : nil
            Terminal.write(Rendering.state(value, style: Style.for(descriptor: STDOUT_FILENO), width: width) + "\n")
        }
    }

    static func label(_ input: InputSyntax.Written) -> String {
        switch input {
        case .json(let text): return text
        case .structured(let name, let fields):
            return ([name] + fields.map { "\($0.name)=\($0.value)" }).joined(separator: " ")
        }
    }
}
