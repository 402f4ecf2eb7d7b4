package fusionkit;

import com.sun.jna.Callback;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The functions of include/fusionkit.h, as JNA maps them. Package-private: {@link Library}
 * and {@link Instance} are the API; {@link Library#c()} hands this out for what the API
 * cannot express on purpose (NULL pointers, made-up handles).
 *
 * <p>Text goes in as UTF-8 {@code byte[]} with its length, never as a Java String (JNA
 * would encode it with the platform's charset). {@code size_t} is {@link SizeT}; a
 * {@code size_t *} is a {@link Memory} of {@code Native.SIZE_T_SIZE} bytes (see
 * {@link #sizeOut()}).
 */
public interface Fk extends com.sun.jna.Library {
    /** FK_ABI_VERSION of the header this package was written against. */
    int ABI_VERSION = 1;

    /** fk_change_fn. */
    interface ChangeFn extends Callback {
        void invoke(Pointer userData, long instance, long version);
    }

    /** fk_request_fn. */
    interface RequestFn extends Callback {
        void invoke(Pointer userData, long instance, Pointer eventJson, SizeT eventLen);
    }

    int fk_abi_version();
    String fk_library_version();
    String fk_status_name(int status);
    Pointer fk_last_error_message();

    int fk_manifest(PointerByReference outJson, Pointer outLen);
    int fk_manifest_summary(PointerByReference outJson, Pointer outLen);
    int fk_feature_manifest(byte[] feature, SizeT featureLen, PointerByReference outJson, Pointer outLen);
    void fk_free(Pointer memory);

    int fk_create(byte[] feature, SizeT featureLen, byte[] state, SizeT stateLen, LongByReference outInstance);
    int fk_create_with_options(byte[] feature, SizeT featureLen, byte[] options, SizeT optionsLen,
                               LongByReference outInstance);
    int fk_destroy(long instance);
    int fk_send(long instance, byte[] input, SizeT inputLen);
    int fk_state(long instance, PointerByReference outJson, Pointer outLen, LongByReference outVersion);
    int fk_send_and_read(long instance, byte[] input, SizeT inputLen, Pointer buffer);
    int fk_state_into(long instance, Pointer buffer);
    int fk_state_patch(long instance, long sinceVersion, PointerByReference outJson, Pointer outLen,
                       LongByReference outVersion);
    int fk_version(long instance, LongByReference outVersion);
    int fk_subscribe(long instance, ChangeFn callback, Pointer userData, LongByReference outSubscription);
    int fk_unsubscribe(long instance, long subscription);

    int fk_advance_clock(long instance, long nanoseconds);
    int fk_pending(long instance, LongByReference outEffects, LongByReference outRequests);
    int fk_next_wake(long instance, LongByReference outNanoseconds);
    int fk_history(long instance, PointerByReference outJson, Pointer outLen);
    int fk_goto(long instance, long version, LongByReference outVersion);
    int fk_checkpoint(long instance, PointerByReference outJson, Pointer outLen);
    int fk_restart_effects(long instance);

    int fk_set_request_handler(long instance, RequestFn handler, Pointer userData);
    int fk_poll_request(long instance, PointerByReference outJson, Pointer outLen);
    int fk_respond(long instance, long requestId, byte[] result, SizeT resultLen);
    int fk_fail_request(long instance, long requestId, byte[] message, SizeT messageLen);

    long fk_limit(int limit, long newValue);

    /** Room for one {@code size_t} an fk_ function writes. */
    static Memory sizeOut() {
        Memory memory = new Memory(Native.SIZE_T_SIZE);
        memory.clear();
        return memory;
    }

    /** The {@code size_t} at {@code memory}. */
    static long readSize(Pointer memory) {
        return Native.SIZE_T_SIZE == 8 ? memory.getLong(0) : memory.getInt(0) & 0xffffffffL;
    }
}
