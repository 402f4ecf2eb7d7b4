/// A value made the first time it is asked for, once, by whichever thread asks first;
/// every later caller gets the same one.
///
/// What a feature's definition needs only once it makes an instance (the table of its
/// field-less inputs) is made here rather than when the feature is described, so that
/// reading a manifest does not pay for it.
@usableFromInline
final class MadeOnce<Value: Sendable>: @unchecked Sendable {
    // `made` is only touched with `lock` held.
    @usableFromInline let lock = ConditionLock()
    @usableFromInline var made: Value?
    @usableFromInline let make: @Sendable () -> Value

    @inlinable
    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    @inlinable
    var value: Value {
        lock.withLock {
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }
}
