import FusionKit
import Testing

@testable import FusionExamples

/// Seed 000's Input/State spec for the Counter, row by row.
@Suite struct CounterTests {
    @Test func increaseAddsOneAndClearsReset() {
        let store = Store<Counter>(state: Counter.State(value: 0, isReset: true))
        store.send(.increase)
        #expect(store.state == Counter.State(value: 1, isReset: false))
    }

    @Test func decreaseSubtractsOneAndClearsReset() {
        let store = Store<Counter>(state: Counter.State(value: 0, isReset: true))
        store.send(.decrease)
        #expect(store.state == Counter.State(value: -1, isReset: false))
    }

    @Test func resetZeroesAndSetsReset() {
        let store = Store<Counter>(state: Counter.State(value: 5))
        store.send(.reset)
        #expect(store.state == Counter.State(value: 0, isReset: true))
    }

    @Test func showTriggersTheAlertOnceUntilDismissed() {
        let store = Store<Counter>(state: Counter.State(value: 3))
        store.send(.show)
        #expect(store.state.alert == "The value is 3.")
        #expect(store.version == 1)
        store.send(.show)  // already showing: nothing new to draw
        #expect(store.version == 1)
        store.send(.alertDismissed)
        #expect(store.state.alert == nil)
        store.send(.show)
        #expect(store.state.alert == "The value is 3.")
        #expect(store.version == 3)
    }

    @Test func staysAtTheEdgesOfIntInsteadOfTrapping() {
        let top = Store<Counter>(state: Counter.State(value: .max))
        top.send(.increase)
        #expect(top.state.value == .max)
        let bottom = Store<Counter>(state: Counter.State(value: .min))
        bottom.send(.decrease)
        #expect(bottom.state.value == .min)
    }

    @Test func statesJSONHasEveryField() throws {
        let store = Store<Counter>()
        let json = String(decoding: try store.encodedState().bytes, as: UTF8.self)
        #expect(json == #"{"value":0,"isReset":false,"alert":null}"#)
    }
}

/// Seed 002's answer form.
@Suite(.timeLimit(.minutes(1))) struct AnswerTests {
    @Test func submitIsEnabledOnlyForTextBesidesWhitespace() {
        let store = Store<Answer>()
        #expect(!store.state.isSubmitEnabled)
        store.send(.answerChanged(text: "  \n\t"))
        #expect(!store.state.isSubmitEnabled)
        store.send(.answerChanged(text: "  yes "))
        #expect(store.state.isSubmitEnabled)
        store.send(.answerChanged(text: ""))
        #expect(!store.state.isSubmitEnabled)
    }

    @Test func submitTakesTimeThenShowsTheResult() async {
        let clock = ManualClock()
        let store = Store<Answer>(environment: Environment(clock: clock))
        store.send(.answerChanged(text: "  I liked it \n"))
        store.send(.submitTapped)
        #expect(store.state.isSubmitting)
        #expect(!store.state.isSubmitEnabled)
        let version = store.version

        store.send(.submitTapped)  // disabled while submitting: ignored
        #expect(store.version == version)

        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(499))
        #expect(store.state.isSubmitting)
        clock.advance(by: .milliseconds(1))
        await store.waitUntil(version: version + 1)
        #expect(store.state.submitted == "I liked it")
        #expect(!store.state.isSubmitting)
        #expect(store.state.answer == "")
        #expect(!store.state.isSubmitEnabled)

        store.send(.resultDismissed)
        #expect(store.state.submitted == nil)
    }

    @Test func submitWithBlankAnswerDoesNothing() {
        let store = Store<Answer>()
        store.send(.submitTapped)
        #expect(store.version == 0)
    }

    @Test func trims() {
        #expect(Answer.trimmed("  a b  ") == "a b")
        #expect(Answer.trimmed("   ") == "")
        #expect(Answer.trimmed("x") == "x")
    }
}

/// The library as the C ABI describes it.
@Suite struct LibraryTests {
    @Test func exportsTheExampleFeatures() {
        let library = fusionLibrary()
        #expect(library.features.map(\.name) == ["counter", "answer", "home", "wifi", "profile"])
        #expect(library.feature(named: "counter")?.inputs.caseNames == ["increase", "decrease", "reset", "show", "alertDismissed"])
    }

    @Test func manifestDescribesInputsAndState() {
        let manifest = fusionLibrary().manifest(abiVersion: 1)
        let answer = manifest["features"].flatMap { features -> JSONValue? in
            guard case .array(let list) = features else { return nil }
            return list.first { $0["name"] == "answer" }
        }
        #expect(
            answer?["inputs"] == [
                ["name": "answerChanged", "fields": [["name": "text", "type": "string", "required": true, "schema": ["type": "string"]]]],
                ["name": "submitTapped", "fields": []],
                ["name": "resultDismissed", "fields": []]
            ])
        // The state as written: every key present, the optional `submitted` as null when absent.
        #expect(answer?["stateSchema"]?["required"] == ["answer", "isSubmitEnabled", "isSubmitting", "submitted"])
        #expect(answer?["stateSchema"]?["title"] == "Answer.State")
        // An input as sent: a field-less case may come bare.
        #expect(answer?["inputSchema"]?["oneOf"]?.elements?.first == ["type": "string", "enum": ["submitTapped", "resultDismissed"]])
    }
}
