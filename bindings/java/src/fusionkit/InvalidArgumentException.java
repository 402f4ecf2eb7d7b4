package fusionkit;

/** FK_ERR_INVALID_ARGUMENT: any other argument out of its range. */
public class InvalidArgumentException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 9;

    public InvalidArgumentException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
