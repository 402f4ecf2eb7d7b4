import CFusionKit
import FusionKit

/// A C request handler and its user data, carried into a Swift closure.
private struct CRequestHandler: @unchecked Sendable {
    let function: fk_request_fn
    let userData: UnsafeMutableRawPointer?
}

@c public func fk_set_request_handler(_ instance: fk_instance, _ handler: fk_request_fn?, _ userData: UnsafeMutableRawPointer?) -> fk_status
{
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let handler else {
                target.hostRequests.setHandler(nil)
                return
            }
            let c = CRequestHandler(function: handler, userData: userData)
            target.hostRequests.setHandler { event in
                var text = event
                text.append(0)
                text.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        c.function(c.userData, instance, chars.baseAddress, event.count)
                    }
                }
            }
        }
    }
}

@c public func fk_poll_request(
    _ instance: fk_instance, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
            guard let event = target.hostRequests.poll() else {
                outJSON.pointee = nil
                outLength?.pointee = 0
                return
            }
            outJSON.pointee = try CArguments.owned(event)
            outLength?.pointee = event.count
        }
    }
}

@c public func fk_respond(_ instance: fk_instance, _ requestID: UInt64, _ resultJSON: UnsafePointer<CChar>?, _ resultLength: Int)
    -> fk_status
{
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            let result = try CArguments.json(resultJSON, resultLength, "result_json", what: "the response")
            // The effect that asked runs on with the answer (at once on a manual clock).
            try target.answering { () throws(FusionError) in
                try racingDestroy(instance, target) { () throws(FusionError) in try target.hostRequests.respond(requestID, with: result) }
            }
        }
    }
}

@c public func fk_fail_request(_ instance: fk_instance, _ requestID: UInt64, _ message: UnsafePointer<CChar>?, _ messageLength: Int)
    -> fk_status
{
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            let text = try CArguments.name(message, messageLength, "message")
            try target.answering { () throws(FusionError) in
                try racingDestroy(instance, target) { () throws(FusionError) in try target.hostRequests.fail(requestID, message: text) }
            }
        }
    }
}

@c public func fk_advance_clock(_ instance: fk_instance, _ nanoseconds: UInt64) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in try target.advanceClock(by: nanoseconds) }
    }
}

@c public func fk_pending(
    _ instance: fk_instance, _ outEffects: UnsafeMutablePointer<UInt64>?, _ outRequests: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            let (effects, requests) = target.pending
            outEffects?.pointee = UInt64(effects)
            outRequests?.pointee = UInt64(requests)
        }
    }
}

@c public func fk_next_wake(_ instance: fk_instance, _ outNanoseconds: UnsafeMutablePointer<UInt64>?) -> fk_status {
    abiCall { () throws(FusionError) in
        guard let outNanoseconds else { throw FusionError(.nullArgument, "out_nanoseconds is NULL") }
        let wait = try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in try target.nextWake() }
        outNanoseconds.pointee = wait ?? UInt64.max
    }
}

/// An answer whose request was closed by fk_destroy on another thread gets
/// FK_ERR_INVALID_HANDLE, as every call racing with destruction does, not
/// FK_ERR_UNKNOWN_REQUEST, which would tell the host its bookkeeping is wrong.
private func racingDestroy(_ instance: fk_instance, _ target: any FeatureInstance, _ answer: () throws(FusionError) -> Void)
    throws(FusionError)
{
    do {
        try answer()
    } catch  where error.status == .unknownRequest && target.isClosed {
        throw FusionError(.invalidHandle, "instance \(instance) was destroyed, which cancelled its requests")
    }
}
