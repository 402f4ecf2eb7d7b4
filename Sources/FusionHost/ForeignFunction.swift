import CFFI

/// An argument to a foreign call, tagged with its C type so the call can check it
/// against the entry point's signature.
enum CArgument {
    case int32(Int32)
    case uint32(UInt32)
    case uint64(UInt64)
    case int64(Int64)
    case size(Int)
    case pointer(UnsafeRawPointer?)

    var type: CType {
        switch self {
        case .int32: return .int32
        case .uint32: return .uint32
        case .uint64: return .uint64
        case .int64: return .int64
        case .size: return .size
        case .pointer: return .pointer
        }
    }
}

/// The result of a foreign call as libffi hands it back: integers widened to `ffi_arg`.
struct CResult {
    let raw: ffi_arg

    var int32: Int32 { Int32(truncatingIfNeeded: raw) }
    var uint32: UInt32 { UInt32(truncatingIfNeeded: raw) }
    var int64: Int64 { Int64(truncatingIfNeeded: raw) }
    var pointer: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(raw)) }
}

/// One entry point of one library, prepared for libffi: `ffi_prep_cif` runs once, when
/// the library loads; each call is then one `ffi_call`.
///
/// @unchecked Sendable: the cif and its type array are written only in init; libffi
/// only reads them during ffi_call, so concurrent calls are safe.
final class ForeignFunction: @unchecked Sendable {
    let entryPoint: EntryPoint
    private let parameters: [CType]
    private let returns: CType
    private let function: @convention(c) () -> Void
    private let cif: UnsafeMutablePointer<ffi_cif>
    // The cif points into this array, so it lives as long as the cif.
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>

    init(_ entryPoint: EntryPoint, address: UnsafeMutableRawPointer) throws(FusionHostError) {
        let signature = entryPoint.signature
        self.entryPoint = entryPoint
        parameters = signature.parameters
        returns = signature.returns
        // dlsym gives a data pointer; libffi wants it as `void (*)(void)`.
        function = unsafeBitCast(address, to: (@convention(c) () -> Void).self)
        cif = .allocate(capacity: 1)
        argumentTypes = .allocate(capacity: max(1, parameters.count))
        for (position, parameter) in parameters.enumerated() {
            argumentTypes[position] = Self.ffiType(parameter)
        }
        let status = ffi_prep_cif(
            cif, cffi_default_abi(), UInt32(parameters.count), Self.ffiType(returns), argumentTypes)
        guard status == FFI_OK else {
            cif.deallocate()
            argumentTypes.deallocate()
            throw .callPreparation(symbol: entryPoint.symbol, status: status.rawValue)
        }
    }

    deinit {
        cif.deallocate()
        argumentTypes.deallocate()
    }

    private static func ffiType(_ type: CType) -> UnsafeMutablePointer<ffi_type>? {
        switch type {
        case .void: return cffi_type_void()
        case .int32: return cffi_type_sint32()
        case .uint32: return cffi_type_uint32()
        case .uint64: return cffi_type_uint64()
        case .int64: return cffi_type_sint64()
        case .size: return cffi_type_size()
        case .pointer: return cffi_type_pointer()
        }
    }

    /// Calls the function. The arguments must match the signature in number and type:
    /// they come from this module's wrappers, never from outside, so a mismatch is a
    /// bug in FusionHost and stops the process before libffi reads wrong memory.
    @discardableResult
    func call(_ arguments: CArgument...) -> CResult {
        call(arguments)
    }

    @discardableResult
    func call(_ arguments: [CArgument]) -> CResult {
        precondition(
            arguments.map(\.type) == parameters,
            "\(entryPoint.symbol) called with \(arguments.map(\.type)), expected \(parameters)")
        // Every argument gets an 8-byte slot, written with its own C type so the bytes
        // libffi reads are right whatever the byte order.
        let slotSize = 8
        return withUnsafeTemporaryAllocation(byteCount: max(1, arguments.count) * slotSize, alignment: 8) { storage in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, arguments.count)) { values in
                for (position, argument) in arguments.enumerated() {
                    let slot = UnsafeMutableRawPointer(mutating: storage.baseAddress.map { $0 + position * slotSize })
                    switch argument {
                    case .int32(let value): slot?.storeBytes(of: value, as: Int32.self)
                    case .uint32(let value): slot?.storeBytes(of: value, as: UInt32.self)
                    case .uint64(let value): slot?.storeBytes(of: value, as: UInt64.self)
                    case .int64(let value): slot?.storeBytes(of: value, as: Int64.self)
                    case .size(let value): slot?.storeBytes(of: value, as: Int.self)
                    case .pointer(let value): slot?.storeBytes(of: value, as: UnsafeRawPointer?.self)
                    }
                    values[position] = slot
                }
                // libffi writes a whole ffi_arg for integer results narrower than it.
                var result: ffi_arg = 0
                ffi_call(cif, function, &result, values.baseAddress)
                return CResult(raw: result)
            }
        }
    }
}
