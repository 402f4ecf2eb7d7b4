package fusionkit;

/** FK_ERR_INVALID_HANDLE: not a live instance (closed, destroyed, or made up). */
public class InvalidHandleException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 2;

    public InvalidHandleException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
