// The C library calls that a name in scope would shadow (Terminal.write, Fusion.exit),
// reached through the platform's module: the client's one place that names it.
#if canImport(Glibc)
    import Glibc

    func exitProcess(_ code: Int32) -> Never { Glibc.exit(code) }
    func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(descriptor, bytes, count) }
#elseif canImport(Darwin)
    import Darwin

    func exitProcess(_ code: Int32) -> Never { Darwin.exit(code) }
    func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(descriptor, bytes, count) }
#endif
