import CFusionKit
import FusionKit

@c public func fk_create(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int,
    _ stateJSON: UnsafePointer<CChar>?, _ stateLength: Int,
    _ outInstance: UnsafeMutablePointer<fk_instance>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        guard let outInstance else { throw FusionError(.nullArgument, "out_instance is NULL") }
        let name = try CArguments.name(feature, featureLength, "feature")
        guard let definition = exportedLibrary.feature(named: name) else {
            let known = exportedLibrary.features.map(\.name).joined(separator: ", ")
            throw FusionError(.unknownFeature, "unknown feature \"\(name)\"; this library has: \(known)")
        }
        var state: JSONValue?
        if stateJSON != nil {
            let bytes = try CArguments.text(stateJSON, stateLength, "state_json")
            switch Result(catching: { () throws(JSONParseError) in try JSONParser.parse(bytes) }) {
            case .success(let value): state = value
            case .failure(let error): throw FusionError(error, in: "the given state")
            }
        }
        let instance = try definition.makeInstance(state: state)
        outInstance.pointee = InstanceTable.shared.insert(instance)
    }
}

@c public func fk_destroy(_ instance: fk_instance) -> fk_status {
    abiCall { () throws(FusionError) in
        guard instance != 0 else { return }
        try InstanceTable.shared.remove(instance).close()
    }
}

@c public func fk_send(_ instance: fk_instance, _ inputJSON: UnsafePointer<CChar>?, _ inputLength: Int) -> fk_status {
    abiCall { () throws(FusionError) in
        let target = try InstanceTable.shared.lookup(instance)
        try target.send(json: try CArguments.text(inputJSON, inputLength, "input_json"))
    }
}

@c public func fk_state(
    _ instance: fk_instance, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<Int>?, _ outVersion: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        let target = try InstanceTable.shared.lookup(instance)
        guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
        let (bytes, version) = try target.stateJSON()
        outJSON.pointee = try CArguments.owned(bytes)
        outLength?.pointee = bytes.count
        outVersion?.pointee = version
    }
}

@c public func fk_version(_ instance: fk_instance, _ outVersion: UnsafeMutablePointer<UInt64>?) -> fk_status {
    abiCall { () throws(FusionError) in
        let target = try InstanceTable.shared.lookup(instance)
        guard let outVersion else { throw FusionError(.nullArgument, "out_version is NULL") }
        outVersion.pointee = target.version
    }
}
