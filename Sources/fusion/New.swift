import ArgumentParser
import FusionWeb

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion new NAME`: a plugin package of one's own, ready to build, test and drive.
struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a feature library package: Package.swift, one feature with its spec as tests, a README.",
        usage: "fusion new NAME [--path DIR] [--fusionkit-path PATH | --fusionkit-url URL --fusionkit-version VERSION]",
        discussion: """
            Creates DIR/NAME (DIR defaults to the current directory) holding a Swift package \
            whose product is lib<NAME>.so (lib<NAME>.dylib on macOS), a FusionKit library \
            with one feature, "<name>", and a Swift test of its Input/State spec. It builds \
            and its test passes as it is:

              cd NAME && swift build && swift test
              fusion run .build/debug/libNAME.so <name>

            The package depends on FusionKit by path: this checkout (the one fusion was \
            built from) unless --fusionkit-path says another, or by URL and version with \
            --fusionkit-url and --fusionkit-version.

            \(ExitStatus.pointer)
            """)

    // ArgumentParser's declarations: each command states its own options, in one shape.
    @Argument(help: "The package's name, which is also its library's and module's: a Swift identifier starting with a letter, e.g. Chores.")
    var name: String

    @Option(help: ArgumentHelp("Where to create the package's folder.", valueName: "dir"))
    var path = "."

    @Option(name: .customLong("fusionkit-path"), help: ArgumentHelp("Depend on the FusionKit checkout at this path.", valueName: "path"))
    var fusionKitPath: String?

    @Option(
        name: .customLong("fusionkit-url"),
        help: ArgumentHelp("Depend on FusionKit from this git URL (with --fusionkit-version).", valueName: "url"))
    var fusionKitURL: String?

    @Option(
        name: .customLong("fusionkit-version"),
        help: ArgumentHelp("The version to depend on from --fusionkit-url, e.g. 0.2.0.", valueName: "version"))
    var fusionKitVersion: String?

    func validate() throws {
        guard let first = name.unicodeScalars.first, ("A"..."Z").contains(first) || ("a"..."z").contains(first),
            name.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            )
        else { throw ValidationError("NAME is a Swift identifier of letters, digits and _ starting with a letter (got \"\(name)\")") }
        if Self.reserved.contains(name) || Self.reserved.contains(name.lowercased()) {
            throw ValidationError("NAME \"\(name)\" is a Swift keyword or a module FusionKit already has; choose another")
        }
        if fusionKitURL != nil, fusionKitPath != nil { throw ValidationError("give --fusionkit-path or --fusionkit-url, not both") }
        if (fusionKitURL == nil) != (fusionKitVersion == nil) {
            throw ValidationError("--fusionkit-url and --fusionkit-version go together")
        }
    }

    /// Names a package cannot take: Swift keywords (the test's `@testable import NAME`
    /// would not parse) and the modules of FusionKit's own package graph.
    static let reserved: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "any", "as", "await", "false", "is", "nil", "self", "super", "throws", "true", "try", "some",
        "FusionKit", "FusionABI", "CFusionKit", "FusionHost", "FusionWeb", "FusionExamples", "CFFI", "Swift", "Foundation",
        "fusionkit", "fusionabi", "cfusionkit", "fusionhost", "fusionweb", "fusionexamples", "cffi", "swift", "foundation"
    ]

    func run() throws {
        let dependency: Scaffold.Dependency
        if let url = fusionKitURL, let version = fusionKitVersion {
            dependency = .url(url, version: version)
        } else if let fusionKitPath {
            dependency = .path(absolute(fusionKitPath))
        } else if let checkout = WebFolders.checkout() {
            dependency = .path(checkout)
        } else {
            throw CLIError(
                .usage,
                "no FusionKit checkout found around the fusion executable; pass --fusionkit-path PATH or --fusionkit-url URL --fusionkit-version VERSION"
            )
        }
        let folder = (path.hasSuffix("/") ? path : path + "/") + name
        let scaffold = Scaffold(name: name, dependency: dependency)
        do {
            try scaffold.write(into: folder)
        } catch {
            throw CLIError(.failure, error.message)
        }
        Terminal.write(
            """
            Created \(folder): the package \(name), with the feature "\(scaffold.featureName)".
              cd \(Self.shellQuoted(folder))
              swift build          # .build/debug/\(Scaffold.libraryFileName(name))
              swift test           # the feature's Input/State spec
              fusion run .build/debug/\(Scaffold.libraryFileName(name)) \(scaffold.featureName)

            """, to: STDOUT_FILENO)
    }

    /// A word the shell reads back as it is: bare when plain, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-~+".unicodeScalars.contains($0)
        }
        return plain ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd + "/" + path
    }
}
