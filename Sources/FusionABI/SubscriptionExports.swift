import CFusionKit
import FusionKit

/// A C callback and its user data, carried into Swift closures. The library never
/// dereferences user_data; it only hands it back.
private struct CCallback: @unchecked Sendable {
    let function: fk_change_fn
    let userData: UnsafeMutableRawPointer?
}

@c public func fk_subscribe(
    _ instance: fk_instance, _ callback: fk_change_fn?, _ userData: UnsafeMutableRawPointer?,
    _ outSubscription: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let callback else { throw FusionError(.nullArgument, "callback is NULL") }
            guard let outSubscription else { throw FusionError(.nullArgument, "out_subscription is NULL") }
            let c = CCallback(function: callback, userData: userData)
            guard let id = try target.subscribe({ version in c.function(c.userData, instance, version) }) else {
                throw FusionError(.invalidHandle, "instance \(instance) is being destroyed")
            }
            outSubscription.pointee = id
        }
    }
}

@c public func fk_unsubscribe(_ instance: fk_instance, _ subscription: UInt64) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard target.unsubscribe(subscription) else {
                // Ended by fk_destroy on another thread: as the header says for calls racing
                // with destruction, an invalid handle (found by the soak test).
                if target.isClosed { throw FusionError(.invalidHandle, "instance \(instance) was destroyed") }
                throw FusionError(
                    .unknownSubscription, "instance \(instance) has no subscription \(subscription); it was never made or has ended")
            }
        }
    }
}
