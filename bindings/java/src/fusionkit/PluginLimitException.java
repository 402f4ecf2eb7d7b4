package fusionkit;

/** FK_ERR_PLUGIN_LIMIT: a sandboxed plugin's call ran past its time budget or memory cap; the instance is failed. */
public class PluginLimitException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 18;

    public PluginLimitException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
