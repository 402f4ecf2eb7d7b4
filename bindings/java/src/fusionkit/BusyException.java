package fusionkit;

/** FK_ERR_BUSY: the instance has work under way the call cannot wait for or restart; try again later. */
public class BusyException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 16;

    public BusyException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
