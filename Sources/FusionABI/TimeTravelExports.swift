import CFusionKit
import FusionKit

@c public func fk_history(
    _ instance: fk_instance, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
            guard let history = target.historyJSON else {
                throw FusionError(
                    .invalidArgument,
                    "this \"\(target.featureName)\" instance keeps no history; create it with the option {\"history\": N} to keep N versions"
                )
            }
            let bytes = JSONWriter.serialize(history)
            outJSON.pointee = try CArguments.owned(bytes)
            outLength?.pointee = bytes.count
        }
    }
}

@c public func fk_checkpoint(
    _ instance: fk_instance, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
            let bytes = JSONWriter.serialize(try target.checkpoint().json)
            outJSON.pointee = try CArguments.owned(bytes)
            outLength?.pointee = bytes.count
        }
    }
}

@c public func fk_restart_effects(_ instance: fk_instance) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in try target.restartEffects() }
    }
}

@c public func fk_goto(_ instance: fk_instance, _ version: UInt64, _ outVersion: UnsafeMutablePointer<UInt64>?) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            let reached = try target.goto(version: version)
            outVersion?.pointee = reached
        }
    }
}
