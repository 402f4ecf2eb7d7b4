package fusionkit;

/** FK_ERR_INTERNAL: the library failed on its own. */
public class InternalException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 11;

    public InternalException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
