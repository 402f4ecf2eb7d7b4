package fusionkit;

import com.sun.jna.IntegerType;
import com.sun.jna.Native;

/** C's {@code size_t}: 8 bytes on 64-bit platforms, 4 on 32-bit ones (older Android ABIs). */
public final class SizeT extends IntegerType {
    private static final long serialVersionUID = 1L;

    public SizeT() {
        this(0);
    }

    public SizeT(long value) {
        super(Native.SIZE_T_SIZE, value, true);
    }
}
