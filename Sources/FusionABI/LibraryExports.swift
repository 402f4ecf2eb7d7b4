import CFusionKit
import FusionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private let libraryVersion = StaticCString(exportedLibrary.version)
private let statusNames: [StaticCString] = FusionStatus.allCases.map { StaticCString($0.symbol) }
private let unknownStatusName = StaticCString("FK_ERR_UNKNOWN_STATUS")

@c public func fk_abi_version() -> UInt32 {
    UInt32(FK_ABI_VERSION)
}

@c public func fk_library_version() -> UnsafePointer<CChar>? {
    libraryVersion.pointer
}

@c public func fk_status_name(_ status: fk_status) -> UnsafePointer<CChar>? {
    guard let known = FusionStatus(rawValue: status) else { return unknownStatusName.pointer }
    return statusNames[Int(known.rawValue)].pointer
}

@c public func fk_last_error_message() -> UnsafePointer<CChar>? {
    LastError.current
}

@c public func fk_manifest(_ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?)
    -> fk_status
{
    abiCall { () throws(FusionError) in
        guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
        outJSON.pointee = try CArguments.owned(manifestBytes)
        outLength?.pointee = manifestBytes.count
    }
}

@c public func fk_manifest_summary(_ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?)
    -> fk_status
{
    abiCall { () throws(FusionError) in
        guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
        outJSON.pointee = try CArguments.owned(manifestSummaryBytes)
        outLength?.pointee = manifestSummaryBytes.count
    }
}

@c public func fk_feature_manifest(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int,
    _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    abiCall { () throws(FusionError) in
        let name = try CArguments.name(feature, featureLength, "feature")
        guard let outJSON else { throw FusionError(.nullArgument, "out_json is NULL") }
        let bytes = JSONWriter.serialize(try exportedFeature(named: name).manifest)
        outJSON.pointee = try CArguments.owned(bytes)
        outLength?.pointee = bytes.count
    }
}

@c public func fk_free(_ memory: UnsafeMutableRawPointer?) {
    free(memory)
}

@c public func fk_limit(_ limit: Int32, _ newValue: Int64) -> Int64 {
    guard let known = FusionLimit(rawValue: limit) else { return -1 }
    if newValue < 0 { return Int64(known.value) }
    return Int64(known.set(Int(clamping: newValue)))
}
