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
/// the generation, whether the slot is live, and how many calls are in its instance right
/// now. A call counts itself in and out of the slot (`withInstance`) and uses the slot's
/// own reference meanwhile, so that a round trip pays two atomic operations, not four
/// (taking and dropping a reference of its own cost two more, measurable in the one-call
/// round trip of docs/performance.md).
/// Inserting and removing take `lock`; a removal clears the live bit (no call starts
/// after that) and releases the slot's reference at once when no call is in, or else
/// leaves that to the last call out, so it never waits for a call, even one on its own
/// thread (a destroy from a callback of the instance's).
final class InstanceTable: @unchecked Sendable {
    private static let slotSize = 64
    private static let slotsPerPage = 256
    private static let maxPages = 16_384  // 4,194,304 instances at once
    private static let liveBit: UInt64 = 1
    private static let user: UInt64 = 2  // one call in the instance
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
            coreField(slot).pointee = Unmanaged.passUnretained(instance.core)
            fusion_atomic_store_release(word(slot), generation << 32 | Self.liveBit)
            live += 1
            return handle
        }
    }

    /// Runs `body` with the instance `handle` names, counted in to its slot meanwhile.
    @inline(__always)
    func withInstance<R>(_ handle: UInt64, _ body: (any FeatureInstance) throws(FusionError) -> R) throws(FusionError) -> R {
        try countedIn(handle) { (slot) throws(FusionError) in try body(instanceField(slot).pointee.unsafelyUnwrapped) }
    }

    /// Runs `body` with the instance `handle` names as its `InstanceCore`, borrowed from
    /// the slot (which keeps its reference while a call is counted in): no reference taken
    /// or given back. For the calls on every round trip.
    @inline(__always)
    func withCore<R>(_ handle: UInt64, _ body: (InstanceCore) throws(FusionError) -> R) throws(FusionError) -> R {
        try countedIn(handle) { (slot) throws(FusionError) in
            // (`_withUnsafeGuaranteedRef` rethrows untyped errors: the outcome goes through a Result.)
            try coreField(slot).pointee.unsafelyUnwrapped._withUnsafeGuaranteedRef { core in
                Result { () throws(FusionError) in try body(core) }
            }.get()
        }
    }

    /// Runs `body` on the slot `handle` names, counted in to it meanwhile, so that a
    /// removal leaves the slot's reference to its instance alone until `body` is done.
    @inline(__always)
    private func countedIn<R>(_ handle: UInt64, _ body: (UnsafeMutableRawPointer) throws(FusionError) -> R) throws(FusionError) -> R {
        guard let (index, slot, generation) = locate(handle) else { throw Self.invalid(handle) }
        let word = word(slot)
        var seen = fusion_atomic_load_acquire(word)
        while true {
            guard seen & Self.liveBit != 0, seen >> 32 == generation else { throw Self.invalid(handle) }
            if fusion_atomic_compare_exchange(word, &seen, seen &+ Self.user) { break }
        }
        defer {
            let before = fusion_atomic_fetch_add(word, 0 &- Self.user)
            // The last call out of an instance removed meanwhile releases it.
            if before & (Self.userMask | Self.liveBit) == Self.user { releaseRemoved(index, slot, generation) }
        }
        return try body(slot)
    }

    /// The instance `handle` names, with a reference of the caller's own: for a call that
    /// keeps it past the call (a subscription's context).
    func lookup(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        try withInstance(handle) { $0 }
    }

    /// Takes the instance out of the table and returns it; the slot's reference goes
    /// now, or with the last call still in it.
    func remove(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        defer { lock.unlock() }
        guard let (index, slot, generation) = locate(handle) else { throw Self.invalid(handle) }
        let word = word(slot)
        // The live bit is cleared only if the slot holds this very instance: a stale
        // handle (destroyed before, its slot since reused) must leave the slot's new
        // instance alone. Calls counting themselves in and out change the word too.
        var seen = fusion_atomic_load_acquire(word)
        while true {
            guard seen & Self.liveBit != 0, seen >> 32 == generation else { throw Self.invalid(handle) }
            if fusion_atomic_compare_exchange(word, &seen, seen & ~Self.liveBit) { break }
        }
        let instance = instanceField(slot).pointee.unsafelyUnwrapped
        live -= 1
        // The caller's reference keeps the instance past the lock (fk_destroy closes it).
        if seen & Self.userMask == 0 { _ = takeOutLocked(index, slot, generation) }
        return instance
    }

    /// Called by the last call out of a removed instance's slot. The slot's reference is
    /// dropped after the lock is let go: when it is the last one, the instance is freed
    /// then, and nothing a deinitializer does can wait for the table's lock.
    private func releaseRemoved(_ index: UInt32, _ slot: UnsafeMutableRawPointer, _ generation: UInt64) {
        let instance: (any FeatureInstance)?
        lock.lock()
        instance = takeOutLocked(index, slot, generation)
        lock.unlock()
        withExtendedLifetime(instance) {}
    }

    /// Takes the slot's reference to its removed instance out, and frees the slot.
    private func takeOutLocked(_ index: UInt32, _ slot: UnsafeMutableRawPointer, _ generation: UInt64) -> (any FeatureInstance)? {
        let instance = instanceField(slot).pointee
        instanceField(slot).pointee = nil
        coreField(slot).pointee = nil
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

    /// The slot's instance as its `InstanceCore`, unretained: the instance field holds the reference.
    @inline(__always)
    private func coreField(_ slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Unmanaged<InstanceCore>?> {
        (slot + 24).assumingMemoryBound(to: Unmanaged<InstanceCore>?.self)
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
                (memory + offset + 24).initializeMemory(as: Unmanaged<InstanceCore>?.self, repeating: nil, count: 1)
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
