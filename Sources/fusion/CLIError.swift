import FusionHost

/// What went wrong, by kind: each kind has its own exit code, so a script can tell a
/// typo in an input from a missing library without reading the message.
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case unknownFeature = 2
    case badInput = 3
    case library = 4
    case stateFile = 5
    case journal = 6
    case outOfDate = 7
    case usage = 64  // as swift-argument-parser exits for a bad command line

    /// A command's --help points here instead of repeating the table: one place to read
    /// and to keep right (`fusion help exit-codes`).
    static let pointer = """
        EXIT STATUS
          0 on success; each kind of failure has its own code, listed by
          fusion help exit-codes
        """

    /// The table of every status, the `exit-codes` help topic.
    static let help = """
        EXIT STATUS
          0   success
          1   the library failed on its own, or the state file or the output could
              not be written (a full disk, a closed stdout)
          2   unknown feature (the message lists the library's features)
          3   bad input: an unknown input case, a missing or mistyped field, text that
              does not parse or is not UTF-8, an argument included (the message says
              which input and why)
          4   the library cannot be used: not found, not loadable, not a FusionKit
              library, or built for another ABI version
          5   the state file cannot be used: unreadable, not JSON, for another
              feature, or a state that does not fit the feature
          6   the journal cannot be used: not a journal, damaged, another feature's
              or state version's, held by another process, or not writable
          7   fusion types --check: the generated files differ from the library's
          64  bad command line: an unknown option, a missing argument
        """
}

/// A failure of the shell client: one line for stderr and the exit code of its kind.
struct CLIError: Error {
    let code: ExitStatus
    let message: String

    init(_ code: ExitStatus, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A library refusal or failure, classified by its status.
    init(_ error: FusionHostError, input: String? = nil) {
        switch error {
        case .cannotLoad, .missingEntryPoint, .abiMismatch, .invalidManifest, .callPreparation:
            self.init(.library, error.description)
        case .failed(let failure):
            let code: ExitStatus
            switch failure.status {
            case .unknownFeature: code = .unknownFeature
            case .unknownInput, .invalidInput, .malformedJSON, .invalidUTF8: code = .badInput
            case .invalidState: code = .stateFile
            default: code = .failure
            }
            let prefix = input.map { "\($0): " } ?? ""
            self.init(code, prefix + error.description)
        }
    }
}
