import CFusionKit
import FusionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The live instances, by handle.
///
/// Handles are numbers, not pointers, so that a stale, destroyed or made-up handle is
/// a failed lookup rather than a dereference. A handle is a slot's index and the slot's
/// generation (bumped each time the slot is emptied), so it is never reused in a
/// process; the pair is scrambled by a bijection keyed at random in each loaded library,
/// so that small made-up numbers like 1 or 42 do not hit a live instance, and one
/// library's handle given to another is refused as invalid instead of reaching an
/// instance of its own.
///
/// Every call through the ABI looks its handle up, from any thread, so a lookup takes no
/// lock and writes nothing shared: two threads driving two instances must not wait for
/// each other. Slots live in pages that never move or go away; each slot is one cache
/// line (so that two instances' lookups never touch the same line), with one atomic word:
/// the generation, whether the slot is live, and how many lookups are copying its
/// instance out right now. Inserting and removing take `lock`; a removal clears the live
/// bit (no lookup starts after that) and waits out the lookups already copying, which
/// run no code of anyone else's, before it releases the instance.
final class InstanceTable: @unchecked Sendable {
    private static let slotSize = 64
    private static let slotsPerPage = 256
    private static let maxPages = 16_384  // 4,194,304 instances at once
    private static let liveBit: UInt64 = 1
    private static let user: UInt64 = 2  // one lookup copying the instance out
    private static let userMask: UInt64 = 0xFFFF_FFFE
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The pages' addresses; an entry is written once (with `lock` held), read without.
    private let pages: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let key: UInt64
    private let inverse: UInt64

    private let lock = ConditionLock()
    // Only touched with `lock` held.
    @exclusivity(unchecked) private var free: [UInt32] = []
    @exclusivity(unchecked) private var fresh: UInt32 = 0
    @exclusivity(unchecked) private var live = 0

    static let shared = InstanceTable()

    init() {
        pages = .allocate(capacity: Self.maxPages)
        pages.initialize(repeating: nil, count: Self.maxPages)
        var random = SystemRandomNumberGenerator()
        key = random.next()
        // The multiplier's inverse modulo 2^64 (Newton's iteration doubles the correct bits).
        var inverse = Self.multiplier
        for _ in 0..<5 { inverse &*= 2 &- Self.multiplier &* inverse }
        self.inverse = inverse
    }

    func insert(_ instance: any FeatureInstance) throws(FusionError) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        while true {
            guard let index = takeSlotLocked() else {
                throw FusionError(.internalError, "too many instances alive at once (\(live)); destroy some first")
            }
            let slot = address(of: index)!
            let generation = fusion_atomic_load_acquire(word(slot)) >> 32
            let handle = scramble(generation << 32 | UInt64(index))
            if handle == 0 {  // 0 is never a handle: skip this generation of the slot
                retireLocked(index, slot, generation)
                continue
            }
            instanceField(slot).pointee = instance
            fusion_atomic_store_release(word(slot), generation << 32 | Self.liveBit)
            live += 1
            return handle
        }
    }

    @inline(__always)
    func lookup(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        guard let (_, slot, generation) = locate(handle) else { throw Self.invalid(handle) }
        let word = word(slot)
        var seen = fusion_atomic_load_acquire(word)
        while true {
            guard seen & Self.liveBit != 0, seen >> 32 == generation else { throw Self.invalid(handle) }
            if fusion_atomic_compare_exchange(word, &seen, seen &+ Self.user) { break }
        }
        // Live, and cannot be released until the count goes down again.
        let instance = instanceField(slot).pointee.unsafelyUnwrapped
        _ = fusion_atomic_fetch_add(word, 0 &- Self.user)
        return instance
    }

    func remove(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        defer { lock.unlock() }
        guard let (index, slot, generation) = locate(handle) else { throw Self.invalid(handle) }
        let word = word(slot)
        // The live bit is cleared only if the slot holds this very instance: a stale
        // handle (destroyed before, its slot since reused) must leave the slot's new
        // instance alone. Lookups counting themselves in and out change the word too.
        var seen = fusion_atomic_load_acquire(word)
        while true {
            guard seen & Self.liveBit != 0, seen >> 32 == generation else { throw Self.invalid(handle) }
            if fusion_atomic_compare_exchange(word, &seen, seen & ~Self.liveBit) { break }
        }
        // Lookups that counted themselves in before the bit was cleared are copying the
        // instance out: a few instructions each, with no lock or callback among them.
        while fusion_atomic_load_acquire(word) & Self.userMask != 0 { sched_yield() }
        let instance = instanceField(slot).pointee.unsafelyUnwrapped
        instanceField(slot).pointee = nil
        live -= 1
        retireLocked(index, slot, generation)
        return instance
    }

    var count: Int { lock.withLock { live } }

    // MARK: slots

    /// The slot a handle names (its index and address) and the generation it expects,
    /// or nil when the handle names no slot there is.
    @inline(__always)
    private func locate(_ handle: UInt64) -> (UInt32, UnsafeMutableRawPointer, UInt64)? {
        guard handle != 0 else { return nil }
        let raw = scramble(handle, inverse: true)
        let index = UInt32(truncatingIfNeeded: raw)
        guard let slot = address(of: index) else { return nil }
        return (index, slot, raw >> 32)
    }

    @inline(__always)
    private func address(of index: UInt32) -> UnsafeMutableRawPointer? {
        let page = Int(index) / Self.slotsPerPage
        guard page < Self.maxPages else { return nil }
        let start = fusion_atomic_load_pointer_acquire(pages + page)
        return start.map { $0 + (Int(index) % Self.slotsPerPage) * Self.slotSize }
    }

    @inline(__always)
    private func word(_ slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UInt64> {
        slot.assumingMemoryBound(to: UInt64.self)
    }

    @inline(__always)
    private func instanceField(_ slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<(any FeatureInstance)?> {
        (slot + 8).assumingMemoryBound(to: (any FeatureInstance)?.self)
    }

    /// `raw` (generation, index) to a handle, or back with `inverse`.
    @inline(__always)
    private func scramble(_ value: UInt64, inverse: Bool = false) -> UInt64 {
        inverse ? (value &* self.inverse) ^ key : (value ^ key) &* Self.multiplier
    }

    /// A free slot's index: a freed one, else the next never used (a new page as needed).
    private func takeSlotLocked() -> UInt32? {
        if let index = free.popLast() { return index }
        guard Int(fresh) < Self.maxPages * Self.slotsPerPage else { return nil }
        let index = fresh
        let page = Int(index) / Self.slotsPerPage
        if pages[page] == nil {
            guard let memory = aligned(Self.slotsPerPage * Self.slotSize) else { return nil }
            for offset in stride(from: 0, to: Self.slotsPerPage * Self.slotSize, by: Self.slotSize) {
                (memory + offset).initializeMemory(as: UInt64.self, repeating: 0, count: 1)
                (memory + offset + 8).initializeMemory(as: (any FeatureInstance)?.self, repeating: nil, count: 1)
            }
            fusion_atomic_store_pointer_release(pages + page, memory)
        }
        fresh += 1
        return index
    }

    /// Moves an empty slot to its next generation and frees it, unless the generations
    /// ran out: then it is never used again, so that no handle comes back.
    private func retireLocked(_ index: UInt32, _ slot: UnsafeMutableRawPointer, _ generation: UInt64) {
        guard generation < 0xFFFF_FFFF else { return }
        fusion_atomic_store_release(word(slot), (generation + 1) << 32)
        free.append(index)
    }

    private func aligned(_ size: Int) -> UnsafeMutableRawPointer? {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, Self.slotSize, size) == 0 else { return nil }
        return memory
    }

    private static func invalid(_ handle: UInt64) -> FusionError {
        if handle == 0 { return FusionError(.invalidHandle, "instance handle is 0, which is never a live instance") }
        return FusionError(.invalidHandle, "instance \(handle) is not a live instance: it was destroyed, or never created by this library")
    }
}
