import ArgumentParser

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion help exit-codes`: the one table of exit statuses, which every command's --help
/// points to instead of repeating it.
struct ExitCodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "What each exit status means, for every command (a help topic: fusion help exit-codes).",
        usage: "fusion help exit-codes",
        discussion: ExitStatus.help)

    func run() throws {
        Terminal.write(ExitStatus.help + "\n", to: STDOUT_FILENO)
    }
}
