package fusionkit;

/** FK_ERR_INVALID_RESPONSE: a response that does not fit the request; it stays open. */
public class InvalidResponseException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 13;

    public InvalidResponseException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
