package fusionkit;

/** FK_ERR_INVALID_STATE: a given state that does not fit the feature's State. */
public class InvalidStateException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 8;

    public InvalidStateException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
