package fusionkit;

import java.util.Map;
import java.util.function.Function;

/**
 * Any error of this package. Every refused fk_ call throws the subclass of its status
 * ({@link UnknownInputException} for FK_ERR_UNKNOWN_INPUT, ...) carrying the number
 * ({@link #code()}), its name from fk_status_name() ({@link #status()}) and the library's
 * own words from fk_last_error_message() ({@link #message()}), read on the calling thread
 * right after the call. Unchecked, as JNA's and Kotlin's errors are.
 *
 * <p>Codes are only ever added to the ABI: a code newer than this package is thrown as a
 * plain {@code FusionException} carrying its number.
 */
public class FusionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Integer code;
    private final String status;
    private final String message;
    private final String function;

    public FusionException(String message) {
        this(message, null, null, null);
    }

    public FusionException(String message, Integer code, String status, String function) {
        super(status == null ? message : status + ": " + message);
        this.message = message;
        this.code = code;
        this.status = status;
        this.function = function;
    }

    /** The fk_status number, or null for errors that are not a status (loading). */
    public Integer code() {
        return code;
    }

    /** The status's name, e.g. "FK_ERR_UNKNOWN_INPUT", or null. */
    public String status() {
        return status;
    }

    /** What went wrong, in the library's words. */
    public String message() {
        return message;
    }

    /** The fk_ function that refused, when there is one. */
    public String function() {
        return function;
    }

    private static final Map<Integer, Function<String[], FusionException>> BY_CODE = Map.ofEntries(
            Map.entry(1, a -> new NullArgumentException(a[0], a[1], a[2])),
            Map.entry(2, a -> new InvalidHandleException(a[0], a[1], a[2])),
            Map.entry(3, a -> new InvalidUtf8Exception(a[0], a[1], a[2])),
            Map.entry(4, a -> new MalformedJsonException(a[0], a[1], a[2])),
            Map.entry(5, a -> new UnknownFeatureException(a[0], a[1], a[2])),
            Map.entry(6, a -> new UnknownInputException(a[0], a[1], a[2])),
            Map.entry(7, a -> new InvalidInputException(a[0], a[1], a[2])),
            Map.entry(8, a -> new InvalidStateException(a[0], a[1], a[2])),
            Map.entry(9, a -> new InvalidArgumentException(a[0], a[1], a[2])),
            Map.entry(10, a -> new UnknownSubscriptionException(a[0], a[1], a[2])),
            Map.entry(11, a -> new InternalException(a[0], a[1], a[2])),
            Map.entry(12, a -> new UnknownRequestException(a[0], a[1], a[2])),
            Map.entry(13, a -> new InvalidResponseException(a[0], a[1], a[2])),
            Map.entry(14, a -> new LimitExceededException(a[0], a[1], a[2])),
            Map.entry(15, a -> new UnsettledException(a[0], a[1], a[2])),
            Map.entry(16, a -> new BusyException(a[0], a[1], a[2])),
            Map.entry(17, a -> new PluginTrappedException(a[0], a[1], a[2])),
            Map.entry(18, a -> new PluginLimitException(a[0], a[1], a[2])),
            Map.entry(19, a -> new InstanceFailedException(a[0], a[1], a[2])));

    /** The exception for a status code (message, status name, function). */
    public static FusionException forStatus(int code, String status, String message, String function) {
        Function<String[], FusionException> make = BY_CODE.get(code);
        if (make == null) {
            return new FusionException(message, code, status, function);
        }
        return make.apply(new String[] {message, status, function});
    }
}
