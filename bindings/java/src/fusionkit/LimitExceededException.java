package fusionkit;

/** FK_ERR_LIMIT_EXCEEDED: the call would go past a limit of {@link Library#limit}; the message names it. */
public class LimitExceededException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 14;

    public LimitExceededException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
