import FusionKit
import Testing
@testable import Chores

/// The Input/State spec of the tally counter.
@Suite struct TallyCounterTests {
    @Test func tapsAddTheStep() {
        let store = Store<TallyCounter>()
        store.send(.tapped)
        store.send(.stepChanged(step: 5))
        store.send(.tapped)
        #expect(store.state.count == 6 && store.state.history == [1, 5] && store.state.canUndo)
    }

    @Test func stepsOutsideOneToAHundredAreIgnored() {
        let store = Store<TallyCounter>()
        #expect(!store.send(.stepChanged(step: 0)))
        #expect(!store.send(.stepChanged(step: 101)))
        #expect(!store.send(.stepChanged(step: 1)))  // unchanged
        #expect(store.state.step == 1 && store.version == 0)
    }

    @Test func undoTakesBackTheLastTap() {
        let store = Store<TallyCounter>()
        store.send(.stepChanged(step: 3))
        store.send(.tapped)
        store.send(.tapped)
        store.send(.undoTapped)
        #expect(store.state.count == 3 && store.state.history == [3])
        store.send(.undoTapped)
        #expect(store.state.count == 0 && !store.state.canUndo)
        #expect(!store.send(.undoTapped))
    }

    @Test func historyKeepsTheLastTen() {
        let store = Store<TallyCounter>()
        for _ in 0..<12 { store.send(.tapped) }
        #expect(store.state.count == 12 && store.state.history.count == TallyCounter.historyLimit)
        for _ in 0..<10 { store.send(.undoTapped) }
        #expect(store.state.count == 2 && !store.state.canUndo)
    }

    @Test func resetStartsOver() {
        let store = Store<TallyCounter>()
        store.send(.tapped)
        store.send(.reset)
        #expect(store.state == TallyCounter.State())
        #expect(!store.send(.reset))
    }
}
