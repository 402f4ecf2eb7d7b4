/*
 * fuzz_respond.c: answering host requests, as a careless host would.
 *
 * A profile instance asks for its four fetches (requests: host, manual clock); the
 * input is commands separated by 0 bytes, each its first byte's operation on the rest:
 * respond to one of the requests heard of (open, answered or cancelled) with the rest
 * as JSON, fail it with the rest as message, answer a made-up id, send the rest as an
 * input, advance the clock, or poll. Checked: a refused answer changes nothing, leaves
 * the request as open as it was and says why; an accepted one closes it; ids never
 * made or already closed are FK_ERR_UNKNOWN_REQUEST; destroy cancels what is open.
 */
#include "fuzz_common.h"

#define MAX_IDS 64

struct heard {
    uint64_t ids[MAX_IDS];
    int count;
    int open;
};

static void on_event(void *user_data, fk_instance instance, const char *event, size_t length) {
    (void)instance;
    struct heard *heard = user_data;
    FUZZ_REQUIRE(strlen(event) == length, "an event's length does not match its text");
    const char *id = strstr(event, "\"id\":");
    FUZZ_REQUIRE(id != NULL, "an event without an id: %s", event);
    if (strstr(event, "\"event\":\"cancel\"")) {
        heard->open--;
        return;
    }
    FUZZ_REQUIRE(strstr(event, "\"event\":\"request\"") != NULL, "an event that is neither: %s", event);
    heard->open++;
    if (heard->count < MAX_IDS) heard->ids[heard->count++] = strtoull(id + 5, NULL, 10);
}

static uint64_t open_requests(fk_instance instance) {
    uint64_t requests = 0;
    FUZZ_REQUIRE(fk_pending(instance, NULL, &requests) == FK_OK, "fk_pending failed");
    return requests;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fk_instance instance;
    FUZZ_REQUIRE(fk_create_with_options("profile", FK_NUL_TERMINATED, "{\"clock\":\"manual\",\"requests\":\"host\"}",
                                        FK_NUL_TERMINATED, &instance) == FK_OK, "creating profile failed");
    struct heard heard = {{0}, 0, 0};
    FUZZ_REQUIRE(fk_set_request_handler(instance, on_event, &heard) == FK_OK, "setting the handler failed");
    FUZZ_REQUIRE(fk_send(instance, "\"loadAllProfiles\"", FK_NUL_TERMINATED) == FK_OK, "loading failed");
    fk_advance_clock(instance, 0);
    const uint8_t *chunk;
    size_t length;
    while (fuzz_next_chunk(&data, &size, &chunk, &length)) {
        if (length == 0) continue;
        uint8_t op = chunk[0] % 6;
        uint8_t pick = length > 1 ? chunk[1] : 0;
        const uint8_t *rest = length > 2 ? chunk + 2 : chunk + length;
        size_t rest_len = length > 2 ? length - 2 : 0;
        uint64_t id = heard.count ? heard.ids[pick % heard.count] : 1;
        struct fuzz_snapshot before = fuzz_snapshot(instance);
        uint64_t open_before = open_requests(instance);
        fk_status status = FK_OK;
        const char *call = "";
        switch (op) {
        case 0: call = "fk_respond"; status = fk_respond(instance, id, (const char *)rest, rest_len); break;
        case 1: call = "fk_fail_request"; status = fk_fail_request(instance, id, (const char *)rest, rest_len); break;
        case 2: {
            uint64_t made_up = 0;
            memcpy(&made_up, rest, rest_len < sizeof made_up ? rest_len : sizeof made_up);
            made_up |= (uint64_t)1 << 40; /* far above any id this run can have handed out */
            call = "fk_respond (made-up id)";
            status = fk_respond(instance, made_up, "{}", 2);
            FUZZ_REQUIRE(status == FK_ERR_UNKNOWN_REQUEST, "answering made-up id %llu gave %s",
                         (unsigned long long)made_up, fk_status_name(status));
            break;
        }
        case 3: call = "fk_send"; status = fk_send(instance, (const char *)rest, rest_len); break;
        case 4: call = "fk_advance_clock"; status = fk_advance_clock(instance, (uint64_t)pick * 10000000u); break;
        case 5: {
            char *event = NULL;
            call = "fk_poll_request";
            status = fk_poll_request(instance, &event, NULL);
            FUZZ_REQUIRE(event == NULL, "an instance with a handler had an event to poll");
            break;
        }
        }
        if (status != FK_OK) {
            FUZZ_REQUIRE(status != FK_ERR_INTERNAL && status != FK_ERR_INVALID_HANDLE && status != FK_ERR_NULL_ARGUMENT,
                         "%s gave %s", call, fk_status_name(status));
            fuzz_unchanged(instance, &before, status, call);
            FUZZ_REQUIRE(open_requests(instance) == open_before, "a refused %s changed the open requests", call);
        } else if (op <= 1) {
            FUZZ_REQUIRE(open_requests(instance) < open_before, "an accepted %s left its request open", call);
            heard.open--; /* answered: closed without a cancel event */
        }
        fk_free(before.json);
        fk_advance_clock(instance, 0);
        FUZZ_REQUIRE((uint64_t)heard.open == open_requests(instance), "the host heard of %d open requests, fk_pending says %llu",
                     heard.open, (unsigned long long)open_requests(instance));
    }
    FUZZ_REQUIRE(fk_destroy(instance) == FK_OK, "destroy failed");
    FUZZ_REQUIRE(heard.open == 0, "destroy left %d requests the host was not told were cancelled", heard.open);
    return 0;
}
