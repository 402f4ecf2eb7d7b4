package fusionkit;

/** FK_ERR_UNKNOWN_INPUT: an input case the feature does not have. */
public class UnknownInputException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 6;

    public UnknownInputException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
