import FusionKit
import Testing

@testable import Chores

/// The Input/State spec of the tally counter, input by input, through `Store`.
@Suite struct TallyCounterTests {
    /// Sends `input` and checks that it was ignored: no change, no new version.
    func expectIgnored(_ store: Store<TallyCounter>, _ input: TallyCounter.Input, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = store.snapshot
        #expect(!store.send(input), "\(input) changed the state", sourceLocation: sourceLocation)
        #expect(store.state == before.state, sourceLocation: sourceLocation)
        #expect(store.version == before.version, sourceLocation: sourceLocation)
    }

    @Test func startsAtZeroWithAStepOfOneAndNothingToUndo() throws {
        let store = Store<TallyCounter>()
        #expect(store.state == TallyCounter.State(count: 0, step: 1, undoSteps: []))
        #expect(!store.state.canUndo)
        let json = String(decoding: try store.encodedState().bytes, as: UTF8.self)
        #expect(json == #"{"count":0,"step":1,"undoSteps":[],"canUndo":false}"#)
    }

    @Test func tappedAddsTheStepAndRemembersIt() {
        let store = Store<TallyCounter>()
        store.send(.tapped)
        #expect(store.state == TallyCounter.State(count: 1, step: 1, undoSteps: [1]))
        #expect(store.state.canUndo)
        store.send(.stepChanged(step: 5))
        store.send(.tapped)
        store.send(.tapped)
        #expect(store.state.count == 11)
        #expect(store.state.undoSteps == [1, 5, 5])
        #expect(store.version == 4)
    }

    @Test(arguments: [1, 2, 7, 50, 99, 100])
    func stepChangedTakesAStepFromOneToAHundred(step: Int) {
        let store = Store<TallyCounter>(state: TallyCounter.State(step: step == 1 ? 2 : 1))
        store.send(.stepChanged(step: step))
        #expect(store.state.step == step)
        store.send(.tapped)
        #expect(store.state.count == step && store.state.undoSteps == [step])
    }

    @Test(arguments: [0, -1, -100, 101, 1_000, Int.max, Int.min])
    func stepChangedOutsideOneToAHundredIsIgnored(step: Int) {
        let store = Store<TallyCounter>()
        store.send(.stepChanged(step: 3))
        store.send(.tapped)
        expectIgnored(store, .stepChanged(step: step))
        #expect(store.state.step == 3)
    }

    @Test func stepChangedToTheSameStepChangesNothing() {
        let store = Store<TallyCounter>()
        expectIgnored(store, .stepChanged(step: 1))
    }

    @Test func changingTheStepLeavesPastTapsAlone() {
        let store = Store<TallyCounter>()
        store.send(.tapped)
        store.send(.stepChanged(step: 10))
        #expect(store.state.count == 1 && store.state.undoSteps == [1])
    }

    @Test func undoTappedTakesBackTheLastTapWithItsOwnStep() {
        let store = Store<TallyCounter>()
        store.send(.stepChanged(step: 3))
        store.send(.tapped)
        store.send(.stepChanged(step: 10))
        store.send(.tapped)
        #expect(store.state.count == 13)
        store.send(.undoTapped)
        #expect(store.state.count == 3 && store.state.undoSteps == [3] && store.state.canUndo)
        #expect(store.state.step == 10)  // the step chosen stays
        store.send(.undoTapped)
        #expect(store.state.count == 0 && store.state.undoSteps.isEmpty)
        #expect(!store.state.canUndo)
    }

    @Test func undoTappedWithNothingToUndoIsIgnored() {
        expectIgnored(Store<TallyCounter>(), .undoTapped)
        let store = Store<TallyCounter>()
        store.send(.tapped)
        store.send(.undoTapped)
        expectIgnored(store, .undoTapped)
        store.send(.tapped)
        store.send(.reset)
        expectIgnored(store, .undoTapped)
    }

    @Test func undoStepsKeepTheLastTenTaps() {
        let store = Store<TallyCounter>()
        for step in 1...12 {
            store.send(.stepChanged(step: step))
            store.send(.tapped)
        }
        #expect(store.state.count == 78)
        #expect(store.state.undoSteps == Array(3...12))
        #expect(TallyCounter.undoLimit == 10)
        for _ in 1...10 { store.send(.undoTapped) }
        #expect(store.state.count == 3)  // the first two taps are beyond undo
        #expect(!store.state.canUndo)
        expectIgnored(store, .undoTapped)
    }

    @Test func resetCountsFromZeroAgainKeepingTheStep() {
        let store = Store<TallyCounter>()
        store.send(.stepChanged(step: 4))
        store.send(.tapped)
        store.send(.tapped)
        store.send(.reset)
        #expect(store.state == TallyCounter.State(count: 0, step: 4, undoSteps: []))
        #expect(!store.state.canUndo)
        store.send(.tapped)
        #expect(store.state.count == 4)
    }

    @Test func resetWithNothingCountedChangesNothing() {
        expectIgnored(Store<TallyCounter>(), .reset)
    }

    @Test func aTapPastTheLargestIntIsIgnoredInsteadOfTrapping() {
        let store = Store<TallyCounter>(state: TallyCounter.State(count: .max - 1, step: 2))
        expectIgnored(store, .tapped)
        let undo = Store<TallyCounter>(state: TallyCounter.State(count: .min, step: 1, undoSteps: [1]))
        expectIgnored(undo, .undoTapped)
    }

    @Test func aStateMadeInSwiftHasItsDerivedField() {
        #expect(TallyCounter.State(count: 2, undoSteps: [1, 1]).canUndo)
        #expect(!TallyCounter.State(count: 2).canUndo)
    }

    @Test func aStateSavedByChores1_0_0RestoresWithItsUndoSteps() throws {
        let saved: JSONValue = ["count": 6, "step": 3, "history": [3, 3], "canUndo": true]
        let instance = try FeatureDefinition(TallyCounter.self).makeInstance(state: saved, stateVersion: 1)
        defer { instance.close() }
        #expect(
            String(decoding: try instance.stateJSON().bytes, as: UTF8.self) == #"{"count":6,"step":3,"undoSteps":[3,3],"canUndo":true}"#)
        // Given as today's shape, the old field is refused, not dropped.
        #expect(throws: FusionError.self) { try FeatureDefinition(TallyCounter.self).makeInstance(state: saved) }
    }
}
