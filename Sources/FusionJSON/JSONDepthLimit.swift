/// How deeply a document's arrays and objects may nest before `JSONParser` refuses it.
///
/// The parser's caller says: a library passes its `fk_limit` setting (so the library's
/// limit lives in the library, and a host that parses with this target links no copy
/// of it), a host its own default. Never more than `JSONParser.maximumDepth`, the most
/// the recursion is known to fit in a thread's stack.
///
/// Trivially copyable (a `StaticString`, not a `String`): it is made and passed on every
/// input a library parses, where retaining a string costs more than the check itself.
public struct JSONDepthLimit: Sendable {
    /// Levels of nesting allowed: `[]` is one, `[[]]` two; 0 allows no array or object.
    public let levels: Int
    /// What sets the limit, named after it in the error so that a person knows what to
    /// raise ("FK_LIMIT_JSON_DEPTH; see fk_limit()"); nil for a fixed limit.
    public let setting: StaticString?

    /// `levels` is clamped to 0...`JSONParser.maximumDepth`.
    @inlinable
    public init(levels: Int, setting: StaticString? = nil) {
        self.levels = min(max(levels, 0), JSONParser.maximumDepth)
        self.setting = setting
    }

    /// The most the parser allows: `JSONParser.maximumDepth` levels.
    public static let maximum = JSONDepthLimit(levels: JSONParser.maximumDepth)

    /// The error's reason: "nesting deeper than 512 levels", then the setting in parentheses.
    var exceededReason: String {
        let reason = "nesting deeper than \(levels) levels"
        return setting.map { "\(reason) (\($0.description))" } ?? reason
    }
}
