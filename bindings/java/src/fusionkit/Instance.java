package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Memory;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * A live instance of a feature. Close it ({@code try}-with-resources, or {@link #close()}):
 * that destroys the native instance exactly once; a {@link Cleaner} destroys one that
 * became unreachable unclosed, as a safety net only. After closing, every call throws
 * {@link InvalidHandleException}.
 *
 * <p>Thread-safe as the ABI is: any thread may call any method; inputs to one instance
 * are applied one at a time, in the order the calls reach the library.
 */
public final class Instance implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger("fusionkit");
    /** The callbacks running on this thread, so that one ended from inside itself stays reachable. */
    private static final ThreadLocal<int[]> CALLBACK_DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private final Library library;
    private final Fk fk;
    private final String feature;
    private final Native state;
    private final Cleaner.Cleanable cleanable;
    private final List<Throwable> callbackErrors = new CopyOnWriteArrayList<>();

    /**
     * What the Cleaner needs, and nothing that points back at the Instance: the handle and
     * the callbacks the library may still call (JNA frees a callback's native stub when
     * the Java object is collected, so they are held until the library lets go of them).
     */
    private static final class Native implements Runnable {
        final Fk fk;
        final long handle;
        final AtomicBoolean closed = new AtomicBoolean();
        final Map<Long, Fk.ChangeFn> subscriptions = new ConcurrentHashMap<>();
        final Set<Object> retired = ConcurrentHashMap.newKeySet();
        volatile Fk.RequestFn requestHandler;

        Native(Fk fk, long handle) {
            this.fk = fk;
            this.handle = handle;
        }

        /** The handle, also once closed: handles are never reused, so the library refuses a closed one by name. */
        long handle() {
            return handle;
        }

        @Override
        public void run() {
            if (closed.compareAndSet(false, true)) {
                fk.fk_destroy(handle);
                if (CALLBACK_DEPTH.get()[0] == 0) {
                    subscriptions.clear();
                    requestHandler = null;
                    retired.clear();
                }
            }
        }
    }

    Instance(Library library, String feature, long handle) {
        this.library = library;
        this.fk = library.c();
        this.feature = feature;
        this.state = new Native(fk, handle);
        this.cleanable = CLEANER.register(this, state);
    }

    /** The feature's name. */
    public String feature() {
        return feature;
    }

    /** The library it comes from. */
    public Library library() {
        return library;
    }

    /** The native handle; once closed, the library refuses it (handles are never reused). */
    public long handle() {
        return state.handle();
    }

    public boolean isClosed() {
        return state.closed.get();
    }

    /**
     * Destroys the native instance: cancels its effects and open host requests (the request
     * handler hears the cancels before this returns) and ends its subscriptions. Closing
     * again does nothing. May be called from inside one of its callbacks.
     */
    @Override
    public void close() {
        cleanable.clean();
    }

    @Override
    public String toString() {
        return "Instance(" + feature + ", handle " + state.handle + (isClosed() ? ", closed)" : ")");
    }

    private void check(int status, String function) {
        library.check(status, function);
    }

    // -- inputs ---------------------------------------------------------------------------

    /** Sends a case without payload: {@code send("increase")} sends {@code "increase"}. */
    public void send(String inputCase) {
        sendJson(Library.write(inputCase));
    }

    /** Sends a case with payload: {@code send("networkTapped", Map.of("id", "blob"))} (no fields: the bare name; {@link Inputs}). */
    public void send(String inputCase, Map<String, ?> fields) {
        sendJson(inputJson(inputCase, fields));
    }

    /** Sends an input given as a JSON tree ({@code {"networkTapped":{"id":"blob"}}}). */
    public void send(JsonNode input) {
        sendJson(Library.write(input));
    }

    /** Sends a typed input (a generated record of the feature's input interface). */
    public void send(FusionInput input) {
        sendJson(input.toJson());
    }

    /** Sends an input given as JSON text (fk_send()). */
    public void sendJson(String inputJson) {
        byte[] text = Library.utf8(Objects.requireNonNull(inputJson, "inputJson"), "the input", "fk_send");
        check(fk.fk_send(state.handle(), text, new SizeT(text.length)), "fk_send");
    }

    static String inputJson(String inputCase, Map<String, ?> fields) {
        return Inputs.structured(Objects.requireNonNull(inputCase, "inputCase"), Objects.requireNonNull(fields, "fields"));
    }

    /** As {@link #send(String)}, returning the state that input produced: one call into the library. */
    public JsonNode sendAndRead(String inputCase) {
        return Library.parse(sendAndReadJson(Library.write(inputCase)).json());
    }

    /** As {@link #send(String, Map)}, returning the state that input produced. */
    public JsonNode sendAndRead(String inputCase, Map<String, ?> fields) {
        return Library.parse(sendAndReadJson(inputJson(inputCase, fields)).json());
    }

    /** As {@link #send(FusionInput)}, returning the state that input produced. */
    public JsonNode sendAndRead(FusionInput input) {
        return Library.parse(sendAndReadJson(input.toJson()).json());
    }

    /**
     * JSON in, JSON and version out, in one call (fk_send_and_read()) into a buffer this
     * thread reuses (another one for a round trip made inside it, by a callback); the
     * fastest round trip. A state larger than the buffer is read again
     * into a larger one (with fk_state_into(), so it may be a later version).
     */
    public StateJson sendAndReadJson(String inputJson) {
        byte[] text = Library.utf8(Objects.requireNonNull(inputJson, "inputJson"), "the input", "fk_send_and_read");
        if (!library.exports("fk_send_and_read")) {
            sendJson(inputJson);
            return stateJson();
        }
        StateBuffer buffer = StateBuffer.acquire();
        try {
            int status = fk.fk_send_and_read(state.handle(), text, new SizeT(text.length), buffer.struct());
            check(status, "fk_send_and_read");
            return buffer.read(() -> fk.fk_state_into(state.handle(), buffer.struct()), this::check);
        } finally {
            buffer.release();
        }
    }

    // -- state ----------------------------------------------------------------------------

    /** The state and its version, as JSON text (fk_state()). */
    public StateJson stateJson() {
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        LongByReference version = new LongByReference();
        check(fk.fk_state(state.handle(), out, length, version), "fk_state");
        return new StateJson(library.ownedText(out, length), version.getValue());
    }

    /** The state, a new tree each call. */
    public JsonNode state() {
        return Library.parse(stateJson().json());
    }

    /** The state and its version, read at once. */
    public Snapshot snapshot() {
        StateJson json = stateJson();
        return new Snapshot(Library.parse(json.json()), json.version());
    }

    /** The state's version: 0 at creation, one more for each change. */
    public long version() {
        LongByReference version = new LongByReference();
        check(fk.fk_version(state.handle(), version), "fk_version");
        return version.getValue();
    }

    /** What changed since a version you hold, as an RFC 6902 patch, or the whole state (fk_state_patch()). */
    public StatePatch statePatch(long sinceVersion) {
        library.require("fk_state_patch");
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        LongByReference version = new LongByReference();
        check(fk.fk_state_patch(state.handle(), sinceVersion, out, length, version), "fk_state_patch");
        return StatePatch.from(Library.parse(library.ownedText(out, length)));
    }

    // -- subscriptions --------------------------------------------------------------------

    /**
     * Calls {@code callback} with the new version after each change, until the
     * subscription is closed or the instance is.
     *
     * <p><b>It runs on the library's thread</b>: the thread that sent the input, the one
     * answering a host request, or a library thread running an effect (a timer), never
     * while the library holds a lock. It may call any method, this instance's included;
     * keep it short. An exception it throws is logged on the "fusionkit" logger and kept
     * in {@link #callbackErrors()}; it never reaches the library. To get the calls on a
     * thread of your own (a UI thread), use {@link #subscribe(Executor, LongConsumer)}.
     */
    public Subscription subscribe(LongConsumer callback) {
        Objects.requireNonNull(callback, "callback");
        Fk.ChangeFn function = (userData, instance, version) -> guarded(() -> callback.accept(version));
        LongByReference id = new LongByReference();
        synchronized (state.subscriptions) {
            check(fk.fk_subscribe(state.handle(), function, null, id), "fk_subscribe");
            state.subscriptions.put(id.getValue(), function);
        }
        return new Subscription(this, id.getValue());
    }

    /** As {@link #subscribe(LongConsumer)}, with each call handed to {@code executor} (e.g. {@code SwingUtilities::invokeLater}). */
    public Subscription subscribe(Executor executor, LongConsumer callback) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(callback, "callback");
        return subscribe(version -> executor.execute(() -> callback.accept(version)));
    }

    void unsubscribe(long id) {
        check(fk.fk_unsubscribe(state.handle(), id), "fk_unsubscribe");
        Fk.ChangeFn function = state.subscriptions.remove(id);
        if (function != null && CALLBACK_DEPTH.get()[0] > 0) {
            state.retired.add(function);
        }
    }

    boolean hasSubscription(long id) {
        return !isClosed() && state.subscriptions.containsKey(id);
    }

    /** Exceptions callbacks and request handlers threw (the newest last). */
    public List<Throwable> callbackErrors() {
        return List.copyOf(callbackErrors);
    }

    private void guarded(Runnable body) {
        int[] depth = CALLBACK_DEPTH.get();
        depth[0]++;
        try {
            body.run();
        } catch (Throwable error) {
            callbackErrors.add(error);
            LOG.log(System.Logger.Level.ERROR, "a callback of " + this + " threw", error);
        } finally {
            depth[0]--;
        }
    }

    // -- host requests --------------------------------------------------------------------

    /**
     * Hands each request and cancel event to {@code handler} (and selects host requests).
     * It runs on the library's thread, as subscriptions do; it may answer at once or keep
     * the id and answer later from any thread. {@code null} removes it: events then wait
     * for {@link #pollRequest()}.
     */
    public void setRequestHandler(Consumer<HostEvent> handler) {
        library.require("fk_set_request_handler");
        Fk.RequestFn function = handler == null ? null : (userData, instance, event, length) -> guarded(() -> {
            byte[] bytes = event.getByteArray(0, Math.toIntExact(length.longValue()));
            handler.accept(HostEvent.from(Library.parse(new String(bytes, StandardCharsets.UTF_8))));
        });
        synchronized (state.subscriptions) {
            check(fk.fk_set_request_handler(state.handle(), function, null), "fk_set_request_handler");
            Fk.RequestFn previous = state.requestHandler;
            state.requestHandler = function;
            if (previous != null && CALLBACK_DEPTH.get()[0] > 0) {
                state.retired.add(previous);
            }
        }
    }

    /** The next request or cancel event, when no handler is set. */
    public Optional<HostEvent> pollRequest() {
        library.require("fk_poll_request");
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        check(fk.fk_poll_request(state.handle(), out, length), "fk_poll_request");
        String text = library.ownedText(out, length);
        return text == null ? Optional.empty() : Optional.of(HostEvent.from(Library.parse(text)));
    }

    /** Answers an open request; the feature's reaction is applied before this returns. */
    public void respond(long requestId, JsonNode result) {
        respondJson(requestId, Library.write(result));
    }

    /** Answers an open request with any value Jackson writes as JSON. */
    public void respond(long requestId, Object result) {
        respondJson(requestId, Library.write(result));
    }

    /** Answers an open request with JSON text (fk_respond()). */
    public void respondJson(long requestId, String resultJson) {
        library.require("fk_respond");
        byte[] text = Library.utf8(Objects.requireNonNull(resultJson, "resultJson"), "the result", "fk_respond");
        check(fk.fk_respond(state.handle(), requestId, text, new SizeT(text.length)), "fk_respond");
    }

    /** Answers an open request with an error: the work could not be done (fk_fail_request()). */
    public void failRequest(long requestId, String message) {
        library.require("fk_fail_request");
        byte[] text = Library.utf8(Objects.requireNonNull(message, "message"), "the message", "fk_fail_request");
        check(fk.fk_fail_request(state.handle(), requestId, text, new SizeT(text.length)), "fk_fail_request");
    }

    // -- time -----------------------------------------------------------------------------

    /** Moves a manual clock forward and returns once the effects that woke have settled. */
    public void advanceClock(Duration by) {
        advanceClockNanos(by.toNanos());
    }

    /** As {@link #advanceClock(Duration)}, in nanoseconds; 0 only settles the effects. */
    public void advanceClockNanos(long nanoseconds) {
        if (nanoseconds < 0) {
            throw new IllegalArgumentException("the clock only moves forward: " + nanoseconds + " ns");
        }
        library.require("fk_advance_clock");
        check(fk.fk_advance_clock(state.handle(), nanoseconds), "fk_advance_clock");
    }

    /** Effects not finished and host requests not answered (fk_pending()). */
    public Pending pending() {
        library.require("fk_pending");
        LongByReference effects = new LongByReference();
        LongByReference requests = new LongByReference();
        check(fk.fk_pending(state.handle(), effects, requests), "fk_pending");
        return new Pending(effects.getValue(), requests.getValue());
    }

    /** Nanoseconds until an effect asleep on the manual clock wakes; empty when none sleeps. */
    public OptionalLong nextWake() {
        library.require("fk_next_wake");
        LongByReference out = new LongByReference();
        check(fk.fk_next_wake(state.handle(), out), "fk_next_wake");
        return out.getValue() == -1L ? OptionalLong.empty() : OptionalLong.of(out.getValue());
    }

    /** Writes down an instance on a manual clock; create another from it with {@link CreateOptions#checkpoint}. */
    public JsonNode checkpoint() {
        library.require("fk_checkpoint");
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        check(fk.fk_checkpoint(state.handle(), out, length), "fk_checkpoint");
        return Library.parse(library.ownedText(out, length));
    }

    /** Stops the effects and starts again those the feature restarts (fk_restart_effects()). */
    public void restartEffects() {
        library.require("fk_restart_effects");
        check(fk.fk_restart_effects(state.handle()), "fk_restart_effects");
    }

    // -- time travel ----------------------------------------------------------------------

    /** The versions kept (option "history"), oldest first, with what made each (fk_history()). */
    public JsonNode history() {
        library.require("fk_history");
        PointerByReference out = new PointerByReference();
        Memory length = Fk.sizeOut();
        check(fk.fk_history(state.handle(), out, length), "fk_history");
        return Library.parse(library.ownedText(out, length));
    }

    /** Returns to the state of a kept version, as a new version, which it returns (fk_goto()). */
    public long goTo(long version) {
        library.require("fk_goto");
        LongByReference out = new LongByReference();
        check(fk.fk_goto(state.handle(), version, out), "fk_goto");
        return out.getValue();
    }

    /** Goes back {@code steps} entries of the history; returns the new version. */
    public long back(int steps) {
        JsonNode entries = history().path("entries");
        int index = entries.size() - 1 - steps;
        if (steps < 0) {
            throw new IllegalArgumentException("steps must be 0 or more: " + steps);
        }
        if (index < 0) {
            throw new InvalidArgumentException("cannot go back " + steps + ": the history keeps only "
                    + (entries.size() - 1) + " versions back", library.statusName(InvalidArgumentException.CODE), "fk_goto");
        }
        return goTo(entries.get(index).path("version").asLong());
    }

    /** What fk_pending() counts. */
    public record Pending(long effects, long requests) {
        public boolean isIdle() {
            return effects == 0 && requests == 0;
        }
    }

    /** A state as JSON text, with its version. */
    public record StateJson(String json, long version) {
    }

    /** A state, with its version. */
    public record Snapshot(JsonNode state, long version) {
    }

}
