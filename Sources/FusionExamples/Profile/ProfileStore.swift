import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// Seed 004's Store pattern: one store is the single source of truth for the profile
/// data several screens show. Loading fetches the pet, the family, the preschool and
/// the baby profile in parallel; each result arrives as its own `…Complete` action;
/// any failure gives the error action and an `error` the front end shows, with
/// `retryTapped` to load again.
///
/// As in the seed, side effects live apart from state changes: `reduce` only changes
/// state, `ProfileMiddleware` only turns actions into effects; `perform` runs both.
///
/// The four fetches are work requested from the host (kinds `fetchPet`,
/// `fetchFamily`, `fetchPreschool`, `fetchBabyProfile`, payload `{"profileID": …}`;
/// results shaped as `PetEntity`, `FamilyEntity`, `PreSchoolEntity`, `BabyProfile`).
/// Without a host the library answers them itself from sample data after a delay.
public struct ProfileStore: Feature {
    public static let name = "profile"
    public static let summary =
        "One store for profile data: four parallel host-requested fetches, …Complete actions, error and retry (seed 004)."

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case loadAllProfiles
        case retryTapped
        case errorDismissed
    }

    /// One of the four fetches.
    @JSONCoded
    public enum Fetch: String, JSONCoded, CaseIterable, Sendable {
        case pet, family, preschool, babyProfile
    }

    public enum Action: Sendable {
        case getAllProfileData
        case getPetEntityComplete(PetEntity)
        case getFamilyEntityComplete(FamilyEntity)
        case getPreSchoolEntityComplete(PreSchoolEntity)
        case getBabyProfileComplete(BabyProfile)
        case setNetworkError(String)
        case dismissError
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable, DerivedFields {
        public var pet: PetEntity?
        public var family: FamilyEntity?
        public var school: PreSchoolEntity?
        public var babyProfile: BabyProfile?
        /// The fetches still under way.
        public var pending: [Fetch] = []
        /// Derived: true while any fetch is under way.
        public var isLoading = false
        /// What went wrong with the last load, for the front end to show; nil when fine.
        public var error: String?
        /// Derived: who is signed in, as the host vouches (the option "user": its `name`
        /// claim, else its subject); nil when nobody is. Never taken from a given state, so
        /// a page cannot name another user.
        public var signedInAs: String?

        public init() {}

        public static let derivedFields: Set<String> = ["isLoading", "signedInAs"]
    }

    let middleware: ProfileMiddleware
    let signedInAs: String?

    public init(environment: Environment) {
        middleware = ProfileMiddleware(environment: environment)
        signedInAs = environment.user?.displayName
    }

    public var initialState: State {
        var state = State()
        deriveValues(in: &state)
        return state
    }

    public func deriveValues(in state: inout State) {
        state.isLoading = !state.pending.isEmpty
        state.signedInAs = signedInAs
    }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .loadAllProfiles, .retryTapped: return state.isLoading ? [] : [.getAllProfileData]
        case .errorDismissed: return state.error == nil ? [] : [.dismissError]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        Self.reduce(action, &state)
        return middleware.handle(action)
    }

    /// The reducer: state changes only, no effects.
    static func reduce(_ action: Action, _ state: inout State) {
        defer { state.isLoading = !state.pending.isEmpty }
        switch action {
        case .getAllProfileData:
            state.error = nil
            state.pending = Fetch.allCases
        // One case per fetch (seed 004's parallel fetches): the `…Complete` cases are alike by design.
        case .getPetEntityComplete(let pet):
            state.pet = pet
            state.pending.removeAll { $0 == .pet }
        case .getFamilyEntityComplete(let family):
            state.family = family
            state.pending.removeAll { $0 == .family }
        case .getPreSchoolEntityComplete(let school):
            state.school = school
            state.pending.removeAll { $0 == .preschool }
        case .getBabyProfileComplete(let baby):
            state.babyProfile = baby
            state.pending.removeAll { $0 == .babyProfile }
        case .setNetworkError(let message):
            state.error = message
            state.pending = []
        case .dismissError:
            state.error = nil
        }
    }
}

/// The middleware: turns actions into effects, never touches state.
struct ProfileMiddleware: Sendable {
    /// How long the library's own sample answers take.
    static let builtinDelay: Duration = .milliseconds(300)
    static let profileID = "baby-1"

    let clock: any FusionClock

    init(environment: Environment) {
        clock = environment.clock
    }

    func handle(_ action: ProfileStore.Action) -> Effect<ProfileStore.Action> {
        switch action {
        case .getAllProfileData:
            // Four effects, so the fetches run in parallel and each result lands alone.
            return .merge(
                fetch(.pet, ProfileSamples.pet, ProfileStore.Action.getPetEntityComplete),
                fetch(.family, ProfileSamples.family, ProfileStore.Action.getFamilyEntityComplete),
                fetch(.preschool, ProfileSamples.school, ProfileStore.Action.getPreSchoolEntityComplete),
                fetch(.babyProfile, ProfileSamples.baby, ProfileStore.Action.getBabyProfileComplete))
        case .setNetworkError:
            // One failure fails the load: stop waiting for the others (the host is told).
            return .merge(ProfileStore.Fetch.allCases.map { .cancel(id: Self.effectID($0)) })
        default:
            return .none
        }
    }

    static func effectID(_ fetch: ProfileStore.Fetch) -> EffectID { EffectID("profile.\(fetch.rawValue)") }

    static func kind(_ fetch: ProfileStore.Fetch) -> String {
        switch fetch {
        case .pet: return "fetchPet"
        case .family: return "fetchFamily"
        case .preschool: return "fetchPreschool"
        case .babyProfile: return "fetchBabyProfile"
        }
    }

    private func fetch<Entity: HostResponse>(
        _ which: ProfileStore.Fetch, _ sample: Entity,
        _ complete: @escaping @Sendable (Entity) -> ProfileStore.Action
    ) -> Effect<ProfileStore.Action> {
        // Without a host, the sample after its delay: as data, so the same request builds
        // into the WebAssembly module.
        let request = HostRequest<Entity>(
            kind: Self.kind(which), payload: ["profileID": .string(Self.profileID)], answer: sample, after: Self.builtinDelay, on: clock)
        return .request(request, id: Self.effectID(which)) { result in
            switch result {
            case .success(let entity): return complete(entity)
            case .failure(let error): return .setNetworkError("Could not load the \(which.rawValue) profile: \(error)")
            }
        }
    }
}
