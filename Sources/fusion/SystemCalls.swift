// The C library calls that a name in scope would shadow (Terminal.write, Fusion.exit),
// reached through the platform's module: the client's one place that names it.
#if canImport(Glibc)
    import Glibc

    func exitProcess(_ code: Int32) -> Never { Glibc.exit(reportingLostOutput(code)) }
    func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(descriptor, bytes, count) }
#elseif canImport(Darwin)
    import Darwin

    func exitProcess(_ code: Int32) -> Never { Darwin.exit(reportingLostOutput(code)) }
    func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(descriptor, bytes, count) }
#endif

/// The status to exit with: `code`, or 1 when the process would say it succeeded but what
/// it wrote to stdout was lost (said on stderr).
private func reportingLostOutput(_ code: Int32) -> Int32 {
    guard code == ExitStatus.success.rawValue, let failure = Terminal.outputFailure() else { return code }
    Fusion.report(CLIError(.failure, "cannot write the output: \(failure)"))
    return ExitStatus.failure.rawValue
}
