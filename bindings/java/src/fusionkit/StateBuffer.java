package fusionkit;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/** An fk_buffer and the memory it points at, kept by a thread and grown to the largest state read into it. */
final class StateBuffer {
    /** struct fk_buffer { char *data; size_t capacity; size_t length; uint64_t version; } */
    @Structure.FieldOrder({"data", "capacity", "length", "version"})
    public static final class FkBuffer extends Structure {
        public Pointer data;
        public SizeT capacity;
        public SizeT length;
        public long version;
    }

    /**
     * The buffers of a thread not in use. A round trip takes one and gives it back after it
     * read it: a callback that makes its own round trip inside another (on the same thread,
     * during the outer call) takes another buffer, so neither writes over the other's state.
     */
    private static final ThreadLocal<java.util.ArrayDeque<StateBuffer>> FREE =
            ThreadLocal.withInitial(java.util.ArrayDeque::new);

    private final FkBuffer struct = new FkBuffer();
    private Memory memory;

    private StateBuffer(long capacity) {
        allocate(capacity);
    }

    /** A buffer of this thread for one round trip; {@link #release()} it once read. */
    static StateBuffer acquire() {
        StateBuffer free = FREE.get().pollFirst();
        return free != null ? free : new StateBuffer(64 * 1024);
    }

    void release() {
        FREE.get().addFirst(this);
    }

    private void allocate(long capacity) {
        memory = new Memory(capacity);
        struct.data = memory;
        struct.capacity = new SizeT(capacity);
        struct.length = new SizeT(0);
        struct.write();
    }

    Pointer struct() {
        return struct.getPointer();
    }

    interface Check {
        void check(int status, String function);
    }

    /** The JSON the last call wrote; when it did not fit, grows and reads the state again with {@code again}. */
    Instance.StateJson read(IntSupplier again, Check check) {
        struct.read();
        long length = struct.length.longValue();
        while (length >= struct.capacity.longValue()) {
            allocate(Math.max(length + 1, struct.capacity.longValue() * 2));
            check.check(again.getAsInt(), "fk_state_into");
            struct.read();
            length = struct.length.longValue();
        }
        byte[] bytes = memory.getByteArray(0, Math.toIntExact(length));
        return new Instance.StateJson(new String(bytes, StandardCharsets.UTF_8), struct.version);
    }
}
