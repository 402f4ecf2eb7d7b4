package fusionkit;

/** FK_ERR_NULL_ARGUMENT: a required pointer was NULL (reachable only through {@link Library#c()}). */
public class NullArgumentException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 1;

    public NullArgumentException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
