package fusionkit;

/** FK_ERR_INVALID_UTF8: text that is not valid UTF-8. */
public class InvalidUtf8Exception extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 3;

    public InvalidUtf8Exception(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
