import FusionJSON

extension JSONDepthLimit {
    /// The nesting a library allows in JSON it is given: FK_LIMIT_JSON_DEPTH as
    /// `fk_limit()` set it, read on every call (an atomic load), named in the error.
    @inlinable
    package static var library: JSONDepthLimit {
        JSONDepthLimit(levels: FusionLimit.jsonDepth.value, setting: "FK_LIMIT_JSON_DEPTH; see fk_limit()")
    }
}
