package fusionkit;

/** The library speaks another ABI version than this package; nothing else was called. */
public class AbiVersionException extends LibraryLoadException {
    private static final long serialVersionUID = 1L;

    private final int found;
    private final int expected;

    public AbiVersionException(String message, int found, int expected) {
        super(message);
        this.found = found;
        this.expected = expected;
    }

    public int found() {
        return found;
    }

    public int expected() {
        return expected;
    }
}
