/// Small C libraries the tests build with `cc -shared -fPIC`, to meet the host with
/// libraries that are not FusionKit's own.
enum CLibraries {
    /// Speaks another ABI version and exports every core function, so that only the
    /// version can be the reason it is refused. Its other functions abort the process if
    /// called: the host must call nothing after seeing the version.
    static let wrongVersion = """
        #include <stdlib.h>
        #include "fusionkit.h"
        uint32_t fk_abi_version(void) { return 999; }
        const char *fk_library_version(void) { abort(); }
        const char *fk_status_name(fk_status s) { (void)s; abort(); }
        const char *fk_last_error_message(void) { abort(); }
        fk_status fk_manifest(char **j, size_t *l) { (void)j; (void)l; abort(); }
        void fk_free(void *m) { (void)m; abort(); }
        fk_status fk_create(const char *f, size_t fl, const char *s, size_t sl, fk_instance *o) { (void)f; (void)fl; (void)s; (void)sl; (void)o; abort(); }
        fk_status fk_destroy(fk_instance i) { (void)i; abort(); }
        fk_status fk_send(fk_instance i, const char *j, size_t l) { (void)i; (void)j; (void)l; abort(); }
        fk_status fk_state(fk_instance i, char **j, size_t *l, uint64_t *v) { (void)i; (void)j; (void)l; (void)v; abort(); }
        fk_status fk_version(fk_instance i, uint64_t *v) { (void)i; (void)v; abort(); }
        fk_status fk_subscribe(fk_instance i, fk_change_fn c, void *u, uint64_t *s) { (void)i; (void)c; (void)u; (void)s; abort(); }
        fk_status fk_unsubscribe(fk_instance i, uint64_t s) { (void)i; (void)s; abort(); }
        """

    /// The right version, and nothing else.
    static let onlyVersion = """
        #include "fusionkit.h"
        uint32_t fk_abi_version(void) { return FK_ABI_VERSION; }
        """

    /// No FusionKit entry point at all.
    static let notFusionKit = """
        int something_else(void) { return 42; }
        """

    /// A complete little FusionKit library written in C: one feature, "toggle", with
    /// state {"on":bool,"flips":int,"label":string,"clock":int}. Inputs: "flip";
    /// "flipLater" (flips 20 ms later on a thread of its own, like an effect);
    /// {"setLabel":{"label":"…"}}. It exports fk_advance_clock but none of the other
    /// optional functions. With -DBAD_MANIFEST its manifest is not JSON.
    static let toggle = #"""
        #define _POSIX_C_SOURCE 200809L
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>
        #include "fusionkit.h"

        static _Thread_local char message[512];
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

        typedef struct {
            int live, on, flips;
            char label[128];
            uint64_t version, clock;
            fk_change_fn callback;
            void *user_data;
        } toggle;
        static toggle toggles[64];
        static int count;

        static fk_status fail(fk_status status, const char *text) {
            snprintf(message, sizeof message, "%s", text);
            return status;
        }
        static fk_status ok(void) { message[0] = 0; return FK_OK; }
        static size_t length(const char *text, size_t len) { return len == FK_NUL_TERMINATED ? strlen(text) : len; }
        static toggle *find(fk_instance i) { return i >= 1 && i <= (fk_instance)count && toggles[i - 1].live ? &toggles[i - 1] : NULL; }

        uint32_t fk_abi_version(void) { return FK_ABI_VERSION; }
        const char *fk_library_version(void) { return "9.9.9"; }
        const char *fk_status_name(fk_status s) {
            switch (s) {
            case FK_OK: return "FK_OK";
            case FK_ERR_NULL_ARGUMENT: return "FK_ERR_NULL_ARGUMENT";
            case FK_ERR_INVALID_HANDLE: return "FK_ERR_INVALID_HANDLE";
            case FK_ERR_MALFORMED_JSON: return "FK_ERR_MALFORMED_JSON";
            case FK_ERR_UNKNOWN_FEATURE: return "FK_ERR_UNKNOWN_FEATURE";
            case FK_ERR_UNKNOWN_INPUT: return "FK_ERR_UNKNOWN_INPUT";
            default: return "FK_ERR_UNKNOWN_STATUS";
            }
        }
        const char *fk_last_error_message(void) { return message; }

        #ifdef BAD_MANIFEST
        static const char manifest[] = "{\"abiVersion\": 1, oops";
        #else
        static const char manifest[] =
            "{\"abiVersion\":1,\"library\":{\"name\":\"Toggle\",\"version\":\"9.9.9\"},\"features\":[{\"name\":\"toggle\","
            "\"summary\":\"A switch.\",\"inputs\":[{\"name\":\"flip\",\"fields\":[]},{\"name\":\"flipLater\",\"fields\":[]},"
            "{\"name\":\"setLabel\",\"fields\":[{\"name\":\"label\",\"type\":\"string\",\"required\":true,\"schema\":{\"type\":\"string\"}}]}],"
            "\"stateSchema\":{\"type\":\"object\",\"properties\":{\"on\":{\"type\":\"boolean\"},\"flips\":{\"type\":\"integer\"},"
            "\"label\":{\"type\":\"string\"},\"clock\":{\"type\":\"integer\"}},\"required\":[\"on\",\"flips\",\"label\",\"clock\"]}}]}";
        #endif

        fk_status fk_manifest(char **out, size_t *len) {
            if (!out) return fail(FK_ERR_NULL_ARGUMENT, "out_json is NULL");
            *out = strdup(manifest);
            if (len) *len = strlen(manifest);
            return ok();
        }
        void fk_free(void *memory) { free(memory); }

        fk_status fk_create(const char *f, size_t fl, const char *s, size_t sl, fk_instance *out) {
            (void)s; (void)sl;
            if (!f || !out) return fail(FK_ERR_NULL_ARGUMENT, "feature or out_instance is NULL");
            if (length(f, fl) != 6 || memcmp(f, "toggle", 6) != 0) return fail(FK_ERR_UNKNOWN_FEATURE, "unknown feature; this library has: toggle");
            pthread_mutex_lock(&lock);
            if (count == 64) { pthread_mutex_unlock(&lock); return fail(FK_ERR_INTERNAL, "full"); }
            toggle *t = &toggles[count++];
            memset(t, 0, sizeof *t);
            t->live = 1;
            *out = (fk_instance)count;
            pthread_mutex_unlock(&lock);
            return ok();
        }
        fk_status fk_destroy(fk_instance i) {
            if (i == 0) return ok();
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (t) t->live = 0;
            pthread_mutex_unlock(&lock);
            return t ? ok() : fail(FK_ERR_INVALID_HANDLE, "not a live toggle");
        }

        /* Applies a change and tells the subscriber, outside the lock. */
        static void changed(toggle *t, fk_instance i) {
            uint64_t version = ++t->version;
            fk_change_fn callback = t->callback;
            void *user_data = t->user_data;
            pthread_mutex_unlock(&lock);
            if (callback) callback(user_data, i, version);
        }

        static void *flip_later(void *arg) {
            fk_instance i = (fk_instance)(uintptr_t)arg;
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (!t) { pthread_mutex_unlock(&lock); return NULL; }
            t->on = !t->on; t->flips++;
            changed(t, i);
            return NULL;
        }

        fk_status fk_send(fk_instance i, const char *json, size_t len) {
            if (!json) return fail(FK_ERR_NULL_ARGUMENT, "input_json is NULL");
            size_t n = length(json, len);
            if (n == 0) return fail(FK_ERR_MALFORMED_JSON, "empty input");
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (!t) { pthread_mutex_unlock(&lock); return fail(FK_ERR_INVALID_HANDLE, "not a live toggle"); }
            static const char label_prefix[] = "{\"setLabel\":{\"label\":\"";
            size_t prefix = sizeof label_prefix - 1;
            if (n == 6 && memcmp(json, "\"flip\"", 6) == 0) {
                t->on = !t->on; t->flips++;
                changed(t, i);
                return ok();
            }
            if (n == 11 && memcmp(json, "\"flipLater\"", 11) == 0) {
                pthread_mutex_unlock(&lock);
                pthread_t thread;
                pthread_create(&thread, NULL, flip_later, (void *)(uintptr_t)i);
                pthread_detach(thread);
                return ok();
            }
            if (n > prefix + 3 && n - prefix - 3 < sizeof t->label && memcmp(json, label_prefix, prefix) == 0
                && memcmp(json + n - 3, "\"}}", 3) == 0) {
                memcpy(t->label, json + prefix, n - prefix - 3);
                t->label[n - prefix - 3] = 0;
                changed(t, i);
                return ok();
            }
            pthread_mutex_unlock(&lock);
            snprintf(message, sizeof message, "unknown input %.*s; valid inputs: flip, flipLater, setLabel", (int)n, json);
            return FK_ERR_UNKNOWN_INPUT;
        }

        fk_status fk_state(fk_instance i, char **out, size_t *len, uint64_t *version) {
            if (!out) return fail(FK_ERR_NULL_ARGUMENT, "out_json is NULL");
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (!t) { pthread_mutex_unlock(&lock); return fail(FK_ERR_INVALID_HANDLE, "not a live toggle"); }
            char buffer[512];
            int n = snprintf(buffer, sizeof buffer, "{\"on\":%s,\"flips\":%d,\"label\":\"%s\",\"clock\":%llu}",
                             t->on ? "true" : "false", t->flips, t->label, (unsigned long long)t->clock);
            if (version) *version = t->version;
            pthread_mutex_unlock(&lock);
            *out = strdup(buffer);
            if (len) *len = (size_t)n;
            return ok();
        }
        fk_status fk_version(fk_instance i, uint64_t *version) {
            if (!version) return fail(FK_ERR_NULL_ARGUMENT, "out_version is NULL");
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (t) *version = t->version;
            pthread_mutex_unlock(&lock);
            return t ? ok() : fail(FK_ERR_INVALID_HANDLE, "not a live toggle");
        }
        fk_status fk_subscribe(fk_instance i, fk_change_fn callback, void *user_data, uint64_t *out) {
            if (!callback || !out) return fail(FK_ERR_NULL_ARGUMENT, "callback or out_subscription is NULL");
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (t) { t->callback = callback; t->user_data = user_data; *out = 1; }
            pthread_mutex_unlock(&lock);
            return t ? ok() : fail(FK_ERR_INVALID_HANDLE, "not a live toggle");
        }
        fk_status fk_unsubscribe(fk_instance i, uint64_t s) {
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            int known = t && s == 1 && t->callback;
            if (known) t->callback = NULL;
            pthread_mutex_unlock(&lock);
            if (!t) return fail(FK_ERR_INVALID_HANDLE, "not a live toggle");
            return known ? ok() : fail(FK_ERR_UNKNOWN_SUBSCRIPTION, "no such subscription");
        }
        fk_status fk_advance_clock(fk_instance i, uint64_t nanoseconds) {
            pthread_mutex_lock(&lock);
            toggle *t = find(i);
            if (!t) { pthread_mutex_unlock(&lock); return fail(FK_ERR_INVALID_HANDLE, "not a live toggle"); }
            t->clock += nanoseconds;
            changed(t, i);
            return ok();
        }
        """#
}
