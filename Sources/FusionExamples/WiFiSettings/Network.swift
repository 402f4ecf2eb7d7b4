import FusionKit

/// A Wi-Fi network as the settings screen shows it (seed 003's domain model).
@JSONCoded
public struct Network: JSONCoded, Equatable, Sendable, Identifiable {
    public var id: String
    public var name: String
    public var isSecured: Bool {
        didSet { securityLabel = Self.securityLabel(isSecured) }
    }
    /// Signal strength, from 0 (none) to 1 (full).
    public var connectivity: Double {
        didSet { (signalBars, signalPercent) = Self.signal(connectivity) }
    }
    /// Derived from `connectivity`: the bars a settings screen lights, 0 to
    /// `signalBarsMaximum`. Every front end draws these rather than mapping the strength
    /// itself (seed 002).
    public private(set) var signalBars: Int
    /// Derived from `connectivity`: the strength in whole percent, 0 to 100.
    public private(set) var signalPercent: Int
    /// Derived from `isSecured`: the words every screen shows for it, "Secured" or "Open"
    /// (a screen may add a lock icon, but not words of its own).
    public private(set) var securityLabel: String

    /// The most bars `signalBars` lights: how many bars a screen draws.
    public static let signalBarsMaximum = 3

    public init(id: String, name: String, isSecured: Bool = true, connectivity: Double = 1) {
        self.id = id
        self.name = name
        self.isSecured = isSecured
        self.connectivity = connectivity
        (signalBars, signalPercent) = Self.signal(connectivity)
        securityLabel = Self.securityLabel(isSecured)
    }

    /// Sets the derived fields (`signalBars`, `signalPercent`, `securityLabel`) from the
    /// rest again: a state given from outside says what it likes about them.
    mutating func deriveValues() {
        (signalBars, signalPercent) = Self.signal(connectivity)
        securityLabel = Self.securityLabel(isSecured)
    }

    /// The one wording of a network's security, chosen here for every screen.
    static func securityLabel(_ isSecured: Bool) -> String { isSecured ? "Secured" : "Open" }

    /// The bars and percent for a strength: a third of full lights one bar more
    /// (anything above 0 lights at least one), out-of-range strengths are clamped.
    static func signal(_ connectivity: Double) -> (bars: Int, percent: Int) {
        let strength = connectivity.isNaN ? 0 : min(1, max(0, connectivity))
        let bars = Int((strength * Double(signalBarsMaximum) - 0.001).rounded(.up))
        return (max(0, bars), Int((strength * 100).rounded()))
    }

    /// What a new screen finds, as in Apple's demo: a few secured networks and an open one.
    public static let samples: [Network] = [
        Network(id: "blob", name: "Blob's WiFi", isSecured: true, connectivity: 0.9),
        Network(id: "blob-jr", name: "Blob Jr's WiFi", isSecured: true, connectivity: 0.6),
        Network(id: "blob-sr", name: "Blob Sr's WiFi", isSecured: true, connectivity: 0.3),
        Network(id: "cafe", name: "Café Guest", isSecured: false, connectivity: 0.5)
    ]

    /// Names networks that appear while the screen is open are drawn from.
    static let passersBy = ["Starbucks", "Library", "Airport Free", "Hotel Lobby", "Neighbour 5G", "Printer-3F"]
}

/// The signal fields and the label are the feature's to compute: a saved network may leave
/// them out (states saved before they existed do).
extension Network: DerivedFields {
    public static let derivedFields: Set<String> = ["signalBars", "signalPercent", "securityLabel"]
}
