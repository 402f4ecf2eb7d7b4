import Testing

@testable import FusionKit

/// Counts how often a `MadeOnce` made its value.
private final class Makings: @unchecked Sendable {
    let lock = ConditionLock()
    var count = 0
}

@Suite struct MadeOnceTests {
    @Test func nothingIsMadeUntilAskedFor() {
        let makings = Makings()
        let once = MadeOnce {
            makings.lock.withLock { makings.count += 1 }; return "made"
        }
        #expect(makings.lock.withLock { makings.count } == 0)
        #expect(once.value == "made")
        #expect(once.value == "made")
        #expect(makings.lock.withLock { makings.count } == 1)
    }

    @Test func threadsAskingAtOnceShareOneValue() async {
        let makings = Makings()
        let once = MadeOnce { () -> [Int] in
            makings.lock.withLock { makings.count += 1 }
            return Array(0..<1000)
        }
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { once.value.reduce(0, +) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sums == Array(repeating: 499_500, count: 8))
        #expect(makings.lock.withLock { makings.count } == 1)
    }
}
