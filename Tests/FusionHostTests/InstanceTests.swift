import Foundation
import FusionHost
import Testing

/// The example library's features driven through the host, as a front end drives them.
@Suite struct InstanceTests {
    let library: HostedLibrary

    init() throws {
        library = try HostedLibrary(path: Support.examplesLibrary())
    }

    @Test func sendsInputsAndReadsStateAndVersion() throws {
        let counter = try library.create(feature: "counter")
        #expect(try counter.state() == InstanceState(json: #"{"value":0,"isReset":false,"alert":null}"#, version: 0))
        try counter.send("\"increase\"")
        try counter.send(["increase": [:]])
        try counter.send(#"{"show":{}}"#)
        let state = try counter.state()
        #expect(state.json == #"{"value":2,"isReset":false,"alert":"The value is 2."}"#)
        #expect(state.version == 3)
        #expect(try counter.version() == 3)
        #expect(try state.value()["value"] == .integer(2))
    }

    @Test func aRefusedInputCarriesStatusNameAndMessageAndChangesNothing() throws {
        let counter = try library.create(feature: "counter")
        try counter.send("\"increase\"")
        let before = try counter.state()

        let unknown = #expect(throws: FusionHostError.self) { try counter.send("\"jump\"") }
        let failure = try #require(unknown?.failure)
        #expect(failure.function == "fk_send")
        #expect(failure.status == .unknownInput)
        #expect(failure.statusName == "FK_ERR_UNKNOWN_INPUT")
        #expect(failure.message.contains("\"jump\""))
        #expect(failure.message.contains("increase"))
        #expect(unknown?.description.hasPrefix("FK_ERR_UNKNOWN_INPUT: ") == true)

        let malformed = #expect(throws: FusionHostError.self) { try counter.send("{\"increase\":") }
        #expect(malformed?.status == .malformedJSON)
        let empty = #expect(throws: FusionHostError.self) { try counter.send("") }
        #expect(empty?.status == .malformedJSON)

        let answer = try library.create(feature: "answer")
        let mistyped = #expect(throws: FusionHostError.self) { try answer.send(#"{"answerChanged":{"text":5}}"#) }
        #expect(mistyped?.status == .invalidInput)
        #expect(mistyped?.failure?.message.contains("text") == true)

        #expect(try counter.state() == before)
        // The message belonged to the failed call; a call that succeeds clears it.
        _ = try counter.version()
        #expect(library.lastErrorMessage() == "")
    }

    @Test func textArrivesByteExactIncludingNonASCII() throws {
        let answer = try library.create(feature: "answer")
        try answer.send(["answerChanged": ["text": "안녕 \"quoted\" \\ \u{1F600}"]])
        let state = try answer.state().value()
        #expect(state["answer"] == .string("안녕 \"quoted\" \\ \u{1F600}"))
        #expect(state["isSubmitEnabled"] == .bool(true))
    }

    @Test func unknownFeatureAndBadStateAreRefusedWithTheLibrarysWords() throws {
        let unknown = #expect(throws: FusionHostError.self) { try library.create(feature: "nope") }
        #expect(unknown?.status == .unknownFeature)
        #expect(unknown?.failure?.function == "fk_create")
        #expect(unknown?.failure?.message.contains("counter") == true)

        let badState = #expect(throws: FusionHostError.self) {
            try library.create(feature: "counter", stateJSON: #"{"value":"many"}"#)
        }
        #expect(badState?.status == .invalidState)

        let started = try library.create(feature: "counter", stateJSON: #"{"value":41,"isReset":false,"alert":null}"#)
        try started.send("\"increase\"")
        #expect(try started.state().value()["value"] == .integer(42))
    }

    @Test func statusNamesComeFromTheLibrary() {
        #expect(library.statusName(.ok) == "FK_OK")
        #expect(library.statusName(.invalidHandle) == "FK_ERR_INVALID_HANDLE")
        #expect(library.statusName(FusionStatus(rawValue: 4242)) == "FK_ERR_UNKNOWN_STATUS")
    }

    @Test func subscribersHearEveryChangeUntilTheyUnsubscribe() throws {
        let counter = try library.create(feature: "counter")
        let heard = Recorder<UInt64>()
        let subscription = try counter.subscribe { heard.append($0) }
        try counter.send("\"increase\"")
        try counter.send("\"decrease\"")
        #expect(heard.values == [1, 2])  // told on the sending thread, before send returns
        try counter.unsubscribe(subscription)
        try counter.send("\"increase\"")
        #expect(heard.values == [1, 2])
        let again = #expect(throws: FusionHostError.self) { try counter.unsubscribe(subscription) }
        #expect(again?.status == .unknownSubscription)
    }

    @Test func aSubscriberMayUnsubscribeItselfFromItsCallback() throws {
        let counter = try library.create(feature: "counter")
        let heard = Recorder<UInt64>()
        let id = Recorder<UInt64>()
        id.append(
            try counter.subscribe { [counter] version in
                heard.append(version)
                if let mine = id.values.first { try? counter.unsubscribe(mine) }
            })
        try counter.send("\"increase\"")
        try counter.send("\"increase\"")
        #expect(heard.values == [1])
    }

    @Test func changesFromEffectsArriveOnAnotherThread() async throws {
        let answer = try library.create(feature: "answer")
        let heard = Recorder<UInt64>()
        try answer.subscribe { heard.append($0) }
        try answer.send(#"{"answerChanged":{"text":" hi "}}"#)
        try answer.send("\"submitTapped\"")
        #expect(try answer.state().value()["isSubmitting"] == .bool(true))
        #expect(await Support.eventually { heard.values.count == 3 })
        let state = try answer.state().value()
        #expect(state["submitted"] == .string("hi"))
        #expect(state["isSubmitting"] == .bool(false))
        #expect(heard.values == [1, 2, 3])
    }

    @Test func destroyEndsTheInstanceAndItsCallbacks() throws {
        let counter = try library.create(feature: "counter")
        let heard = Recorder<UInt64>()
        try counter.subscribe { heard.append($0) }
        try counter.destroy()
        let stale = #expect(throws: FusionHostError.self) { try counter.send("\"increase\"") }
        #expect(stale?.status == .invalidHandle)
        let twice = #expect(throws: FusionHostError.self) { try counter.destroy() }
        #expect(twice?.status == .invalidHandle)
        #expect(heard.values.isEmpty)
    }

    @Test func creationOptionsAndTheManualClock() throws {
        guard library.exports("fk_create_with_options") && library.exports("fk_advance_clock") else {
            // A library from before these landed: the host says so by name.
            #expect(throws: FusionHostError.self) { try library.create(feature: "answer", optionsJSON: "{}") }
            return
        }
        let answer = try library.create(feature: "answer", options: ["clock": "manual"])
        try answer.send(#"{"answerChanged":{"text":"late"}}"#)
        try answer.send("\"submitTapped\"")
        try answer.advanceClock(by: .milliseconds(100))
        #expect(try answer.state().value()["isSubmitting"] == .bool(true))
        try answer.advanceClock(by: .seconds(1))
        #expect(try answer.state().value()["submitted"] == .string("late"))

        let refused = #expect(throws: FusionHostError.self) {
            try library.create(feature: "counter", optionsJSON: #"{"colour":"blue"}"#)
        }
        #expect(refused?.status == .invalidArgument)
        #expect(refused?.failure?.message.contains("colour") == true)

        let systemClock = try library.create(feature: "counter")
        let noManualClock = #expect(throws: FusionHostError.self) { try systemClock.advanceClock(byNanoseconds: 1) }
        #expect(noManualClock?.status == .invalidArgument)
    }

    @Test func hostRequestFunctionsWithoutOpenRequests() throws {
        guard ["fk_set_request_handler", "fk_poll_request", "fk_respond", "fk_fail_request"].allSatisfy(library.exports) else {
            #expect(throws: FusionHostError.self) { try library.create(feature: "counter").pollRequest() }
            return
        }
        let counter = try library.create(feature: "counter")
        #expect(try counter.pollRequest() == nil)
        let unknown = #expect(throws: FusionHostError.self) { try counter.respond(to: 77, result: .object([])) }
        #expect(unknown?.status == .unknownRequest)
        let unknownFailure = #expect(throws: FusionHostError.self) { try counter.failRequest(77, message: "no") }
        #expect(unknownFailure?.status == .unknownRequest)
        let events = Recorder<HostRequestEvent>()
        try counter.setRequestHandler { events.append($0) }
        try counter.setRequestHandler(nil)
        try counter.destroy()
        #expect(events.values.isEmpty)
    }
}
