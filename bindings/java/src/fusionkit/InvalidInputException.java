package fusionkit;

/** FK_ERR_INVALID_INPUT: a known input with a missing, unknown or mistyped field. */
public class InvalidInputException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 7;

    public InvalidInputException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
