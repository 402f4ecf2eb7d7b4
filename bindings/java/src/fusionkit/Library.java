package fusionkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.URISyntaxException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loaded FusionKit library: the features it holds and the instances made from them.
 *
 * <pre>{@code
 * Library lib = Library.load();                       // or Library.load(Path.of("libMine.so"))
 * try (Instance counter = lib.create("counter")) {
 *     counter.send("increase");
 *     System.out.println(counter.state() + " v" + counter.version());
 * }
 * }</pre>
 *
 * <p>Thread-safe: every method may be called from any thread, as every fk_ function may.
 * The library is opened with {@code dlopen(RTLD_LOCAL)} (JNA's default), so several
 * libraries live side by side in one process; it is never unloaded.
 */
public final class Library {
    /** The one environment variable every host reads: a library's path. */
    public static final String LIBRARY_ENV = "FUSIONKIT_LIBRARY";
    /** FK_LIMIT_LENGTH and the other limits of fk_limit(). */
    public static final int LIMIT_LENGTH = 0;
    public static final int LIMIT_JSON_DEPTH = 1;
    public static final int LIMIT_SUBSCRIBERS = 2;
    public static final int LIMIT_HOST_REQUESTS = 3;
    public static final int LIMIT_INSTANCES = 4;

    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * dlopen flags: JNA's own (RTLD_LAZY | RTLD_LOCAL) and RTLD_NODELETE. JNA closes every
     * library it opened when the JVM shuts down, and a Swift library must never be
     * unloaded: its runtime's thread-exit and at-exit handlers would jump into unmapped
     * code (a SIGSEGV as the JVM exits). RTLD_NODELETE makes that dlclose keep it mapped.
     */
    static final int OPEN_FLAGS = 0x1 | (com.sun.jna.Platform.isMac() ? 0x80 : 0x1000);

    private final Path path;
    private final Fk fk;
    private final NativeLibrary nativeLibrary;
    private final Map<String, Boolean> exported = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> features = new ConcurrentHashMap<>();
    private volatile JsonNode summary;

    private Library(Path path, Fk fk, NativeLibrary nativeLibrary) {
        this.path = path;
        this.fk = fk;
        this.nativeLibrary = nativeLibrary;
    }

    /**
     * Opens the library at {@code path} and checks its ABI version before any other call.
     *
     * @throws LibraryLoadException the file is missing, cannot be loaded or is not a
     *     FusionKit library (the message names the path)
     * @throws AbiVersionException it speaks another ABI version (both are named)
     */
    public static Library load(Path path) {
        Objects.requireNonNull(path, "path");
        Path absolute = path.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            throw new LibraryLoadException("no FusionKit library at " + absolute + ": it is a folder; name the library file in it");
        }
        if (!Files.isRegularFile(absolute)) {
            throw new LibraryLoadException("no FusionKit library at " + absolute + ": the file does not exist");
        }
        Fk fk;
        NativeLibrary nativeLibrary;
        try {
            Map<String, Object> options = Map.of(com.sun.jna.Library.OPTION_STRING_ENCODING, "UTF-8",
                    com.sun.jna.Library.OPTION_OPEN_FLAGS, OPEN_FLAGS);
            nativeLibrary = NativeLibrary.getInstance(absolute.toString(), options);
            fk = Native.load(absolute.toString(), Fk.class, options);
        } catch (UnsatisfiedLinkError error) {
            throw new LibraryLoadException("cannot load the library " + absolute + ": " + error.getMessage(), error);
        }
        Library library = new Library(absolute, fk, nativeLibrary);
        if (!library.exports("fk_abi_version")) {
            throw new LibraryLoadException(absolute + " is not a FusionKit library: it does not export fk_abi_version");
        }
        int found = fk.fk_abi_version();
        if (found != Fk.ABI_VERSION) {
            throw new AbiVersionException(absolute + " speaks FusionKit ABI version " + found
                    + "; this package speaks version " + Fk.ABI_VERSION, found, Fk.ABI_VERSION);
        }
        return library;
    }

    /**
     * Opens the default library: {@code $FUSIONKIT_LIBRARY} when set (and then only that
     * file); else the example library of a FusionKit checkout, {@code .build/release} then
     * {@code .build/debug}, looked for from the current directory up, then from this jar's
     * folder up.
     */
    public static Library load() {
        String fromEnvironment = System.getenv(LIBRARY_ENV);
        if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
            return load(Paths.get(fromEnvironment));
        }
        List<Path> tried = defaultCandidates();
        for (Path candidate : tried) {
            if (Files.isRegularFile(candidate)) {
                return load(candidate);
            }
        }
        throw new LibraryLoadException("no FusionKit library found: set " + LIBRARY_ENV
                + " or pass a path; looked at " + tried);
    }

    static List<Path> defaultCandidates() {
        String name = System.mapLibraryName("FusionExamples");
        List<Path> roots = new ArrayList<>();
        for (Path at = Paths.get("").toAbsolutePath(); at != null; at = at.getParent()) {
            roots.add(at);
        }
        try {
            Path jar = Paths.get(Library.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path at = jar.getParent(); at != null; at = at.getParent()) {
                if (!roots.contains(at)) {
                    roots.add(at);
                }
            }
        } catch (URISyntaxException | RuntimeException ignored) {
            // No code source (an unusual class loader): the current directory is enough.
        }
        List<Path> candidates = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isRegularFile(root.resolve("Package.swift"))) {
                candidates.add(root.resolve(".build/release").resolve(name));
                candidates.add(root.resolve(".build/debug").resolve(name));
            }
        }
        return candidates;
    }

    /** The file this library was loaded from. */
    public Path path() {
        return path;
    }

    /** The JNA mapping of every fk_ function, for what the API cannot express on purpose. */
    public Fk c() {
        return fk;
    }

    @Override
    public String toString() {
        return "Library(" + path + ")";
    }

    // -- errors ---------------------------------------------------------------------------

    /** fk_status_name(). */
    public String statusName(int status) {
        return fk.fk_status_name(status);
    }

    /** fk_last_error_message() of the calling thread. */
    public String lastErrorMessage() {
        Pointer message = fk.fk_last_error_message();
        return message == null ? "" : message.getString(0, "UTF-8");
    }

    /** Throws the exception of {@code status}, as the API does, unless it is FK_OK. */
    public void check(int status) {
        check(status, null);
    }

    void check(int status, String function) {
        if (status != 0) {
            String message = lastErrorMessage();
            throw FusionException.forStatus(status, statusName(status), message, function);
        }
    }

    boolean exports(String function) {
        return exported.computeIfAbsent(function, name -> {
            try {
                nativeLibrary.getFunction(name);
                return true;
            } catch (UnsatisfiedLinkError missing) {
                return false;
            }
        });
    }

    void require(String function) {
        if (!exports(function)) {
            throw new MissingFunctionException(path + " does not export " + function
                    + ", which this call needs (a library built before it was added to the ABI)");
        }
    }

    // -- the library ----------------------------------------------------------------------

    /** fk_abi_version(). */
    public int abiVersion() {
        return fk.fk_abi_version();
    }

    /** fk_library_version(), e.g. "0.1.0". */
    public String version() {
        return fk.fk_library_version();
    }

    /** fk_limit(): the limit's value. */
    public long limit(int which) {
        return limit(which, -1);
    }

    /** fk_limit(): sets a limit and returns its value before the call. */
    public long limit(int which, long newValue) {
        require("fk_limit");
        long before = fk.fk_limit(which, newValue);
        if (before < 0) {
            throw new InvalidArgumentException("no limit numbered " + which, statusName(9), "fk_limit");
        }
        return before;
    }

    /** The whole manifest as JSON text (fk_manifest()). */
    public String manifestJson() {
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        check(fk.fk_manifest(out, length), "fk_manifest");
        return ownedText(out, length);
    }

    /** The whole manifest, every feature described. */
    public JsonNode manifest() {
        return parse(manifestJson());
    }

    /** The manifest without the features' descriptions (fk_manifest_summary()). */
    public JsonNode summary() {
        JsonNode known = summary;
        if (known == null) {
            if (exports("fk_manifest_summary")) {
                PointerByReference out = new PointerByReference();
                Memory length = Fk.sizeOut();
                check(fk.fk_manifest_summary(out, length), "fk_manifest_summary");
                known = parse(ownedText(out, length));
            } else {
                known = manifest();
            }
            summary = known;
        }
        return known;
    }

    /** The features' names, in the manifest's order. */
    public List<String> features() {
        List<String> names = new ArrayList<>();
        summary().path("features").forEach(feature -> names.add(feature.path("name").asText()));
        return Collections.unmodifiableList(names);
    }

    /** The optional functions the library exports (the manifest's "optionalFunctions"). */
    public List<String> optionalFunctions() {
        List<String> names = new ArrayList<>();
        summary().path("optionalFunctions").forEach(name -> names.add(name.asText()));
        return Collections.unmodifiableList(names);
    }

    /** One feature's entry of the manifest: settings, inputs, inputSchema, stateSchema, stateVersion. */
    public JsonNode feature(String name) {
        Objects.requireNonNull(name, "name");
        return features.computeIfAbsent(name, key -> {
            byte[] text = utf8(key, "feature", "fk_feature_manifest");
            PointerByReference out = new PointerByReference();
            Memory length = Fk.sizeOut();
            if (exports("fk_feature_manifest")) {
                check(fk.fk_feature_manifest(text, new SizeT(text.length), out, length), "fk_feature_manifest");
                return parse(ownedText(out, length));
            }
            for (JsonNode feature : manifest().path("features")) {
                if (feature.path("name").asText().equals(key)) {
                    return feature;
                }
            }
            throw new UnknownFeatureException("no feature \"" + key + "\"; features: " + features(),
                    statusName(UnknownFeatureException.CODE), "fk_feature_manifest");
        });
    }

    // -- instances ------------------------------------------------------------------------

    /** A new instance of {@code feature} in its initial state, on the system clock (fk_create()). */
    public Instance create(String feature) {
        Objects.requireNonNull(feature, "feature");
        byte[] name = utf8(feature, "feature", "fk_create");
        LongByReference out = new LongByReference();
        check(fk.fk_create(name, new SizeT(name.length), null, new SizeT(0), out), "fk_create");
        return new Instance(this, feature, out.getValue());
    }

    /** A new instance with options: a state, a seed, a manual clock, host requests, ... */
    public Instance create(String feature, CreateOptions options) {
        Objects.requireNonNull(feature, "feature");
        Objects.requireNonNull(options, "options");
        return createWithOptions(feature, options.toJson());
    }

    /** A new instance with options given as a JSON object (fk_create_with_options()). */
    public Instance create(String feature, String optionsJson) {
        Objects.requireNonNull(feature, "feature");
        require("fk_create_with_options");
        Objects.requireNonNull(optionsJson, "optionsJson");
        byte[] name = utf8(feature, "feature", "fk_create_with_options");
        byte[] options = utf8(optionsJson, "the options", "fk_create_with_options");
        LongByReference out = new LongByReference();
        check(fk.fk_create_with_options(name, new SizeT(name.length), options, new SizeT(options.length), out),
                "fk_create_with_options");
        return new Instance(this, feature, out.getValue());
    }

    private Instance createWithOptions(String feature, ObjectNode options) {
        return create(feature, write(options));
    }

    // -- text -----------------------------------------------------------------------------

    /**
     * A Java String as the UTF-8 the library reads, or {@link InvalidUtf8Exception} (before any
     * call, so nothing changes) when it holds an unpaired UTF-16 surrogate: such a String has
     * no UTF-8 form, and {@code getBytes} would put a '?' in its place, sending text the caller
     * never wrote. {@code what} names the argument as the library's messages do ("the input").
     *
     * <p>The common case, ASCII, costs a look at every eight bytes: ASCII text encodes to as
     * many bytes as it has chars, and so does a lone surrogate (as '?'), so only a '?' the
     * String does not hold at that index gives one away. Other text is searched for an
     * unpaired surrogate char by char.
     */
    static byte[] utf8(String text, String what, String function) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == text.length()) {
            for (int i = indexOfQuestionMark(bytes, 0); i >= 0; i = indexOfQuestionMark(bytes, i + 1)) {
                if (text.charAt(i) != '?') {
                    throw unpairedSurrogate(text, i, what, function);
                }
            }
        } else {
            int bad = unpairedSurrogate(text);
            if (bad >= 0) {
                throw unpairedSurrogate(text, bad, what, function);
            }
        }
        return bytes;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** The index of the first '?' of {@code bytes} at or after {@code from}, or -1; eight bytes at a time. */
    static int indexOfQuestionMark(byte[] bytes, int from) {
        int i = from;
        for (; i + Long.BYTES <= bytes.length; i += Long.BYTES) {
            long eight = (long) LONGS.get(bytes, i) ^ ('?' * ONES);   // a '?' byte becomes 0
            if (((eight - ONES) & ~eight & HIGHS) != 0) {              // some byte is 0
                break;
            }
        }
        for (; i < bytes.length; i++) {
            if (bytes[i] == '?') {
                return i;
            }
        }
        return -1;
    }

    /** The index of the first unpaired UTF-16 surrogate of {@code text}, or -1. */
    static int unpairedSurrogate(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    private static InvalidUtf8Exception unpairedSurrogate(String text, int index, String what, String function) {
        return new InvalidUtf8Exception(String.format("%s is not valid UTF-8: an unpaired UTF-16 surrogate (U+%04X) at"
                + " index %d has no UTF-8 form", what, (int) text.charAt(index), index), "FK_ERR_INVALID_UTF8", function);
    }

    /** The owned text an fk_ call handed out, decoded, then released with fk_free(). */
    String ownedText(PointerByReference out, Memory length) {
        Pointer text = out.getValue();
        if (text == null) {
            return null;
        }
        try {
            long size = Fk.readSize(length);
            return new String(text.getByteArray(0, Math.toIntExact(size)), StandardCharsets.UTF_8);
        } finally {
            fk.fk_free(text);
        }
    }

    static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException error) {
            throw new InternalException("the library wrote JSON this package cannot read: " + error.getOriginalMessage(),
                    "FK_ERR_INTERNAL", null);
        }
    }

    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (java.io.IOException error) {
            throw new IllegalArgumentException("not expressible as JSON: " + error.getMessage(), error);
        }
    }
}
