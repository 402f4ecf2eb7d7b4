import Foundation
import FusionHost
import Testing

/// Where things are, and small C libraries built for a test.
enum Support {
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// libFusionExamples.so of this build: beside the test runner (SwiftPM puts both in
    /// the bin dir), or $FUSIONKIT_LIBRARY.
    static func examplesLibrary() throws -> String {
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("libFusionExamples.so").path)
        }
        if let configured = ProcessInfo.processInfo.environment["FUSIONKIT_LIBRARY"] { candidates.append(configured) }
        candidates.append(root.appendingPathComponent(".build/debug/libFusionExamples.so").path)
        guard let found = candidates.first(where: FileManager.default.fileExists(atPath:)) else {
            throw SupportError("libFusionExamples.so not found (looked at \(candidates)); run `swift build --product FusionExamples` first")
        }
        return found
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fusionhost-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Compiles C source into a shared library (`cc -shared -fPIC`) against include/.
    static func buildCLibrary(named name: String, source: String, defines: [String] = []) throws -> String {
        let directory = try temporaryDirectory()
        let sourceFile = directory.appendingPathComponent("\(name).c")
        try source.write(to: sourceFile, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("lib\(name).so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "cc", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-pthread",
                "-I", root.appendingPathComponent("include").path
            ]
            + defines.map { "-D\($0)" } + [sourceFile.path, "-o", output.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw SupportError("cc failed for \(name): \(message)") }
        return output.path
    }

    /// Waits (polling) until `condition` holds or `timeout` passes; true if it held.
    static func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

struct SupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A thread-safe list of what callbacks saw.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = LockedValue<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

extension FusionHostError {
    var failure: CallFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}
