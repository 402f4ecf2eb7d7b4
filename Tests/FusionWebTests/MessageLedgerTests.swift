import Testing

@testable import FusionWeb

/// The session's record of its `send` messages by id (docs/web-protocol.md, "Exactly once").
@Suite struct MessageLedgerTests {
    @Test func aDoneIdGetsItsOutcomeAndIsNotClaimedAgain() async {
        let ledger = MessageLedger()
        #expect(await ledger.claim("a", journaled: { nil }) == .mine)
        ledger.finish("a", .applied(version: 7))
        #expect(await ledger.claim("a", journaled: { nil }) == .done(.applied(version: 7)))
        let refusal = BridgeError(status: "FK_ERR_UNKNOWN_INPUT", message: "no")
        #expect(await ledger.claim("b", journaled: { nil }) == .mine)
        ledger.finish("b", .refused(refusal))
        #expect(await ledger.claim("b", journaled: { nil }) == .done(.refused(refusal)))
    }

    @Test func anIdLetGoMayBeClaimedAgain() async {
        let ledger = MessageLedger()
        #expect(await ledger.claim("a", journaled: { nil }) == .mine)
        ledger.finish("a", nil)
        #expect(ledger.outcome("a") == nil)
        #expect(await ledger.claim("a", journaled: { nil }) == .mine)
    }

    @Test func anIdTheJournalHoldsIsDone() async {
        let ledger = MessageLedger()
        #expect(await ledger.claim("a", journaled: { .applied(version: nil) }) == .done(.applied(version: nil)))
        #expect(ledger.outcome("a") == .applied(version: nil))
    }

    @Test func aSecondClaimWaitsForTheFirstOutcome() async {
        let ledger = MessageLedger()
        #expect(await ledger.claim("a", journaled: { nil }) == .mine)
        async let second = ledger.claim("a", journaled: { nil })
        async let settled: Void = ledger.settle()
        try? await Task.sleep(for: .milliseconds(50))
        ledger.finish("a", .applied(version: 1))
        #expect(await second == .done(.applied(version: 1)))
        await settled
    }

    @Test func keepsAtLeastTheLastOnes() async {
        let ledger = MessageLedger()
        for number in 0..<(3 * MessageLedger.kept) {
            _ = await ledger.claim("\(number)", journaled: { nil })
            ledger.finish("\(number)", .applied(version: UInt64(number)))
        }
        let last = 3 * MessageLedger.kept - 1
        for number in (last - MessageLedger.kept + 1)...last { #expect(ledger.outcome("\(number)") != nil) }
        #expect(ledger.outcome("0") == nil)
    }
}
