package fusionkit;

/** The library cannot be used: not found, not loadable, or not a FusionKit library. The message names the path. */
public class LibraryLoadException extends FusionException {
    private static final long serialVersionUID = 1L;

    public LibraryLoadException(String message) {
        super(message);
    }

    public LibraryLoadException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
