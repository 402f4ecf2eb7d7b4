import CFusionKit
import FusionKit

// Every export is a thin @c wrapper of one shape (the C signature, then abiCall around
// the Swift call), so that each reads against its declaration in include/fusionkit.h.
@c public func fk_create(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int,
    _ stateJSON: UnsafePointer<CChar>?, _ stateLength: Int,
    _ outInstance: UnsafeMutablePointer<fk_instance>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try create(feature, featureLength, outInstance) { () throws(FusionError) in
            var options = InstanceOptions()
            if stateJSON != nil {
                options.state = try CArguments.json(stateJSON, stateLength, "state_json", what: "the given state")
            }
            return options
        }
    }
}

@c public func fk_create_with_options(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int,
    _ optionsJSON: UnsafePointer<CChar>?, _ optionsLength: Int,
    _ outInstance: UnsafeMutablePointer<fk_instance>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try create(feature, featureLength, outInstance) { () throws(FusionError) in
            guard optionsJSON != nil else { return InstanceOptions() }
            return try InstanceOptions(json: try CArguments.json(optionsJSON, optionsLength, "options_json", what: "the options"))
        }
    }
}

@c public func fk_destroy(_ instance: fk_instance) -> fk_status {
    abiCall { () throws(FusionError) in
        guard instance != 0 else { return }
        try InstanceTable.shared.remove(instance).close()
        LiveInstances.release()
    }
}

@c public func fk_send(_ instance: fk_instance, _ inputJSON: UnsafePointer<CChar>?, _ inputLength: Int) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withCore(instance) { (target) throws(FusionError) in
            try target.send(json: try CArguments.text(inputJSON, inputLength, "input_json"))
        }
    }
}

@c public func fk_state(
    _ instance: fk_instance, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<Int>?, _ outVersion: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withCore(instance) { (target) throws(FusionError) in
            guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
            try InjectedFault.checkState()
            if let (memory, length, version) = try target.mallocState() {
                outJSON.pointee = memory.assumingMemoryBound(to: CChar.self)
                outLength?.pointee = length
                outVersion?.pointee = version
                return
            }
            let (bytes, version) = try target.stateJSON()
            outJSON.pointee = try CArguments.owned(bytes)
            outLength?.pointee = bytes.count
            outVersion?.pointee = version
        }
    }
}

@c public func fk_state_patch(
    _ instance: fk_instance, _ sinceVersion: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<Int>?, _ outVersion: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
            let (bytes, version) = try target.statePatch(since: sinceVersion)
            outJSON.pointee = try CArguments.owned(bytes)
            outLength?.pointee = bytes.count
            outVersion?.pointee = version
        }
    }
}

@c public func fk_state_into(_ instance: fk_instance, _ buffer: UnsafeMutablePointer<fk_buffer>?) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withCore(instance) { (target) throws(FusionError) in
            let buffer = try CArguments.buffer(buffer)
            let (length, version) = try target.writeState(into: CArguments.room(buffer))
            CArguments.finish(buffer, length: length, version: version)
        }
    }
}

@c public func fk_send_and_read(
    _ instance: fk_instance, _ inputJSON: UnsafePointer<CChar>?, _ inputLength: Int, _ buffer: UnsafeMutablePointer<fk_buffer>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withCore(instance) { (target) throws(FusionError) in
            let input = try CArguments.text(inputJSON, inputLength, "input_json")
            // Checked before the input is applied: an error must leave the state as it was.
            let buffer = try CArguments.buffer(buffer)
            let (length, version) = try target.sendAndWriteState(json: input, into: CArguments.room(buffer))
            CArguments.finish(buffer, length: length, version: version)
        }
    }
}

@c public func fk_send_and_read_call(_ call: UnsafeMutablePointer<fk_call>?, _ inputJSON: UnsafePointer<CChar>?) -> fk_status {
    guard let call else {
        return abiCall { () throws(FusionError) in throw FusionError(.nullArgument, "call is NULL") }
    }
    return fk_send_and_read(call.pointee.instance, inputJSON, call.pointee.input_len, &call.pointee.buffer)
}

@c public func fk_version(_ instance: fk_instance, _ outVersion: UnsafeMutablePointer<UInt64>?) -> fk_status {
    abiCall { () throws(FusionError) in
        try InstanceTable.shared.withInstance(instance) { (target) throws(FusionError) in
            guard let outVersion else { throw FusionError(.nullArgument, "out_version is NULL") }
            outVersion.pointee = target.version
        }
    }
}

/// What both create functions do once they know the options: check the out pointer
/// and the name first (so their errors come before the options'), then make it.
private func create(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int, _ outInstance: UnsafeMutablePointer<fk_instance>?,
    options: () throws(FusionError) -> InstanceOptions
) throws(FusionError) {
    guard let outInstance else { throw FusionError(.nullArgument, "out_instance is NULL") }
    let definition = try exportedFeature(named: try CArguments.name(feature, featureLength, "feature"))
    let options = try options()
    // Counted before it is made (FK_LIMIT_INSTANCES); given back if making it fails.
    try LiveInstances.reserve()
    let instance: any FeatureInstance
    do {
        instance = try definition.makeInstance(options: options)
    } catch {
        LiveInstances.release()
        throw error
    }
    do {
        outInstance.pointee = try InstanceTable.shared.insert(instance)
    } catch {
        instance.close()
        LiveInstances.release()
        throw error
    }
}
