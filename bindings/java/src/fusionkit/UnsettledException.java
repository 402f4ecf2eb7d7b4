package fusionkit;

/** FK_ERR_UNSETTLED: an effect on a manual clock waits on something else, so it cannot settle. */
public class UnsettledException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 15;

    public UnsettledException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
