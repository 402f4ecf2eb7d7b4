import FusionKit
import Testing

@testable import FusionExamples

/// Seed 004's Store: four fetches requested from the host, answered in any order.
@Suite(.timeLimit(.minutes(1))) struct ProfileStoreTests {
    /// A host that records request events, as a front end's handler would.
    final class Host: @unchecked Sendable {
        let lock = ConditionLock()
        var events: [JSONValue] = []
        func record(_ bytes: [UInt8]) {
            guard let event = try? JSONParser.parse(bytes) else { return }
            lock.withLock { events.append(event) }
        }
        var requests: [(id: UInt64, kind: String)] {
            lock.withLock {
                events.compactMap { event in
                    guard event["event"] == "request", case .integer(let id)? = event["id"], let kind = event["kind"]?.stringValue else {
                        return nil
                    }
                    return (UInt64(id), kind)
                }
            }
        }
        var cancelled: [UInt64] {
            lock.withLock {
                events.compactMap { event in
                    guard event["event"] == "cancel", case .integer(let id)? = event["id"] else { return nil }
                    return UInt64(id)
                }
            }
        }
    }

    func hosted() -> (Store<ProfileStore>, Host, HostRequests) {
        let requests = HostRequests(mode: .host)
        let host = Host()
        requests.setHandler { host.record($0) }
        return (Store<ProfileStore>(environment: Environment(clock: ManualClock(), host: requests)), host, requests)
    }

    func waitForRequests(_ requests: HostRequests, _ count: Int) async {
        while requests.openCount < count { await Task.yield() }
    }

    func id(_ host: Host, _ kind: String) -> UInt64 {
        host.requests.first { $0.kind == kind }?.id ?? 0
    }

    @Test func loadingRequestsAllFourAtOnce() async {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        #expect(store.state.isLoading)
        #expect(store.state.pending == [.pet, .family, .preschool, .babyProfile])
        await waitForRequests(requests, 4)
        #expect(Set(host.requests.map(\.kind)) == ["fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"])
        store.send(.loadAllProfiles)  // already loading: nothing new
        #expect(host.requests.count == 4)
    }

    @Test func eachAnswerLandsAsItsOwnCompleteInAnyOrder() async throws {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        await waitForRequests(requests, 4)
        let v = store.version
        try requests.respond(
            id(host, "fetchBabyProfile"), with: ["name": "Ari", "birthDate": "2024-01-01", "heightCm": 80, "weightKg": 10.5])
        await store.waitUntil(version: v + 1)
        #expect(store.state.babyProfile?.name == "Ari")
        #expect(store.state.pending == [.pet, .family, .preschool])
        try requests.respond(id(host, "fetchPet"), with: ["name": "Bori", "species": "cat", "age": 2])
        try requests.respond(id(host, "fetchFamily"), with: ["members": [["name": "A", "relation": "mother"]]])
        try requests.respond(id(host, "fetchPreschool"), with: ["name": "Oak", "className": "Bears", "teacher": "Kim"])
        await store.waitUntil(version: v + 4)
        #expect(store.state.pet?.name == "Bori")
        #expect(store.state.family?.members.count == 1)
        #expect(store.state.school?.teacher == "Kim")
        #expect(!store.state.isLoading)
        #expect(store.state.error == nil)
    }

    @Test func aResponseOfTheWrongShapeIsRefusedAndTheRequestStaysOpen() async throws {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        await waitForRequests(requests, 4)
        #expect(throws: FusionError.self) { try requests.respond(id(host, "fetchPet"), with: ["name": 5]) }
        #expect(requests.openCount == 4)
        try requests.respond(id(host, "fetchPet"), with: ["name": "Bori", "species": "cat", "age": 2])
        #expect(requests.openCount == 3)
        #expect(throws: FusionError.self) { try requests.respond(id(host, "fetchPet"), with: ["name": "Bori", "species": "cat", "age": 2]) }
    }

    @Test func oneFailureGivesTheErrorCancelsTheRestAndRetryWorks() async throws {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        await waitForRequests(requests, 4)
        let v = store.version
        try requests.fail(id(host, "fetchFamily"), message: "offline")
        await store.waitUntil(version: v + 1)
        #expect(store.state.error?.contains("offline") == true)
        #expect(!store.state.isLoading)
        #expect(requests.openCount == 0)
        #expect(Set(host.cancelled) == Set(["fetchPet", "fetchPreschool", "fetchBabyProfile"].map { id(host, $0) }))

        store.send(.retryTapped)
        #expect(store.state.error == nil)
        #expect(store.state.isLoading)
        await waitForRequests(requests, 4)
        #expect(host.requests.count == 8)
    }

    @Test func answersAreAppliedInTheOrderTheHostGivesThem() throws {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        #expect(requests.openCount == 4)  // submitted before send returns
        try requests.respond(id(host, "fetchPet"), with: ["name": "Bori", "species": "cat", "age": 2])
        #expect(store.state.pet?.name == "Bori")  // applied before respond returns
        try requests.fail(id(host, "fetchFamily"), message: "offline")
        #expect(store.state.pet?.name == "Bori")  // the earlier answer stays
        #expect(store.state.error?.contains("offline") == true)
        #expect(Set(host.cancelled) == Set(["fetchPreschool", "fetchBabyProfile"].map { id(host, $0) }))
    }

    @Test func closingCancelsOpenRequestsAndTellsTheHost() async {
        let (store, host, requests) = hosted()
        store.send(.loadAllProfiles)
        await waitForRequests(requests, 4)
        requests.close()
        store.close()
        #expect(host.cancelled.count == 4)
        #expect(requests.openCount == 0)
    }

    @Test func withoutAHostTheLibraryAnswersWithSamples() async {
        let clock = ManualClock()
        let store = Store<ProfileStore>(environment: Environment(clock: clock))
        store.send(.loadAllProfiles)
        await clock.waitForSleepers(4)
        clock.advance(by: ProfileMiddleware.builtinDelay)
        await store.waitUntil(version: 5)
        #expect(store.state.pet == ProfileSamples.pet)
        #expect(store.state.family == ProfileSamples.family)
        #expect(store.state.school == ProfileSamples.school)
        #expect(store.state.babyProfile == ProfileSamples.baby)
        #expect(!store.state.isLoading)
    }

    @Test func reducerOnlyChangesStateAndMiddlewareOnlyMakesEffects() {
        var state = ProfileStore.State()
        ProfileStore.reduce(.getPetEntityComplete(ProfileSamples.pet), &state)
        #expect(state.pet == ProfileSamples.pet)
        let middleware = ProfileMiddleware(environment: Environment())
        #expect(middleware.handle(.getPetEntityComplete(ProfileSamples.pet)).isNone)
        #expect(!middleware.handle(.getAllProfileData).isNone)
    }
}
