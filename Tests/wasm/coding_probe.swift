// Types shaped like the examples' states (nested structs in an array, optionals, an enum
// with values, a String-backed enum, derived fields), coded by @JSONCoded. Built twice by
// test_embedded_coding.py: for the host, and under Embedded Swift for wasm32, with the
// same FusionJSON and FusionKit coding sources; both builds must answer alike.

@JSONCoded
public enum Security: String, JSONCoded, Equatable, Sendable {
    case open
    case wpa2 = "WPA2"
}

@JSONCoded
public struct Station: JSONCoded, Equatable, Sendable, DerivedFields {
    public var id: String
    public var name: String
    public var strength: Double
    public var security: Security
    public var bars = 0
    public static let derivedFields: Set<String> = ["bars"]
}

@JSONCoded
public enum Screen: JSONCoded, Equatable, Sendable {
    case list
    case detail(Station)
    case join(id: String, password: String?)
}

@JSONCoded
public struct Settings: JSONCoded, Equatable, Sendable {
    public var isOn = true
    public var stations: [Station] = []
    public var selected: String?
    public var screen: Screen?
    public var counts: [String: Int] = [:]
}

/// Reads `text` as `Settings` and writes it back, or the error, as the line both builds print.
public func probe(_ text: [UInt8]) -> String {
    let parsed: JSONValue
    do {
        parsed = try JSONParser.parse(text)
    } catch {
        return "parse error"
    }
    do throws(JSONCodingError) {
        let settings = try Settings(json: parsed)
        return settings.jsonText
    } catch {
        return "error: \(error.description)"
    }
}
