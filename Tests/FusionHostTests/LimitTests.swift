import CFusionKit
import Foundation
import FusionHost
import Testing

/// fk_limit through the host. On a copy of the example library: limits hold for the
/// whole library, and the other suites use the original from parallel tests.
@Suite struct LimitTests {
    let library: HostedLibrary

    init() throws {
        let copy = try Support.temporaryDirectory().appendingPathComponent("libFusionExamplesLimits.so").path
        try FileManager.default.copyItem(atPath: try Support.examplesLibrary(), toPath: copy)
        library = try HostedLibrary(path: copy)
    }

    @Test func readsAndSetsALimitAndRefusesPastIt() throws {
        #expect(library.exports("fk_limit"))
        #expect(try library.limit(FK_LIMIT_SUBSCRIBERS) == 1024)
        #expect(try library.limit(99) == -1)
        #expect(try library.limit(FK_LIMIT_SUBSCRIBERS, 1) == 1024)
        let counter = try library.create(feature: "counter")
        _ = try counter.subscribe { _ in }
        // A Result rather than a `catch` pattern on the error: that form crashes the
        // 6.3.1 compiler under -sanitize=thread ("Found outside of lifetime use").
        let refused = Result { () throws(FusionHostError) in try counter.subscribe { _ in } }
        guard case .failure(.failed(let failure)) = refused else {
            Issue.record("a second subscriber past a limit of 1 gave \(refused)")
            return
        }
        #expect(failure.status == .limitExceeded)
        #expect(failure.statusName == "FK_ERR_LIMIT_EXCEEDED")
        #expect(failure.message.contains("FK_LIMIT_SUBSCRIBERS"))
        #expect(try library.limit(FK_LIMIT_SUBSCRIBERS, 1024) == 1)
    }
}
