/*
 * bad_inputs.c: everything a C caller can get wrong, one row each.
 *
 * Each row calls the ABI the wrong way and states the status it must return and
 * words its message must contain. After every row the live instances' state and
 * version must be exactly what they were: bad input changes nothing. A crash fails
 * the whole program, which is the point. Prints one line per row and closes with
 * "N passed, M failed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"

struct world {
    fk_instance counter;  /* live, at value 2 */
    fk_instance answer;   /* live, with some text typed */
    fk_instance dead;     /* destroyed */
};

typedef fk_status (*row_fn)(struct world *w);

struct row {
    const char *name;
    row_fn run;
    fk_status expected;
    const char *words[3]; /* must all appear in the message; NULL ends */
};

static char deep[200003];

static void noop_callback(void *user_data, fk_instance instance, uint64_t version) {
    (void)user_data; (void)instance; (void)version;
}

/* ---- fk_create ---- */
static fk_status create_null_feature(struct world *w) { (void)w; fk_instance i; return fk_create(NULL, 0, NULL, 0, &i); }
static fk_status create_null_out(struct world *w) { (void)w; return fk_create("counter", FK_NUL_TERMINATED, NULL, 0, NULL); }
static fk_status create_unknown_feature(struct world *w) { (void)w; fk_instance i; return fk_create("teleporter", FK_NUL_TERMINATED, NULL, 0, &i); }
static fk_status create_feature_bad_utf8(struct world *w) { (void)w; fk_instance i; return fk_create("count\xff", FK_NUL_TERMINATED, NULL, 0, &i); }
static fk_status create_state_malformed(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "{\"value\":", FK_NUL_TERMINATED, &i); }
static fk_status create_state_empty(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "", 0, &i); }
static fk_status create_state_bad_utf8(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "{\"alert\":\"\xc3\x28\"}", FK_NUL_TERMINATED, &i); }
static fk_status create_state_wrong_type(struct world *w) {
    (void)w; fk_instance i;
    return fk_create("counter", FK_NUL_TERMINATED, "{\"value\":\"three\",\"isReset\":false,\"alert\":null}", FK_NUL_TERMINATED, &i);
}
static fk_status create_state_missing_field(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "{\"value\":3}", FK_NUL_TERMINATED, &i); }
static fk_status create_state_not_object(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "[1,2]", FK_NUL_TERMINATED, &i); }
static fk_status create_state_too_big(struct world *w) {
    (void)w; fk_instance i;
    return fk_create("counter", FK_NUL_TERMINATED, "{\"value\":123456789012345678901234567890,\"isReset\":false,\"alert\":null}", FK_NUL_TERMINATED, &i);
}

/* ---- fk_send ---- */
static fk_status send_null(struct world *w) { return fk_send(w->counter, NULL, 0); }
static fk_status send_empty(struct world *w) { return fk_send(w->counter, "", 0); }
static fk_status send_whitespace(struct world *w) { return fk_send(w->counter, "  \n ", FK_NUL_TERMINATED); }
static fk_status send_truncated(struct world *w) { return fk_send(w->counter, "{\"increase\":", FK_NUL_TERMINATED); }
static fk_status send_trailing(struct world *w) { return fk_send(w->counter, "\"increase\" x", FK_NUL_TERMINATED); }
static fk_status send_unquoted(struct world *w) { return fk_send(w->counter, "increase", FK_NUL_TERMINATED); }
static fk_status send_length_too_big(struct world *w) { return fk_send(w->counter, "\"increase\"", FK_NUL_TERMINATED - 1); }
static fk_status send_deep(struct world *w) { return fk_send(w->counter, deep, FK_NUL_TERMINATED); }
static fk_status send_bad_utf8(struct world *w) { return fk_send(w->counter, "\"\xc3\x28\"", FK_NUL_TERMINATED); }
static fk_status send_lone_continuation(struct world *w) { return fk_send(w->counter, "\"inc\x80\"", FK_NUL_TERMINATED); }
static fk_status send_surrogate_bytes(struct world *w) { return fk_send(w->counter, "\"\xed\xa0\x80\"", FK_NUL_TERMINATED); }
static fk_status send_unknown_case(struct world *w) { return fk_send(w->counter, "\"jump\"", FK_NUL_TERMINATED); }
static fk_status send_unknown_case_object(struct world *w) { return fk_send(w->counter, "{\"jump\":{\"height\":2}}", FK_NUL_TERMINATED); }
/* A NUL inside a name: the message writes it as \u0000 and goes on (a C string would end there). */
static fk_status send_unknown_case_with_nul(struct world *w) { return fk_send(w->counter, "\"jump\\u0000x\"", FK_NUL_TERMINATED); }
static fk_status send_number(struct world *w) { return fk_send(w->counter, "42", FK_NUL_TERMINATED); }
static fk_status send_two_keys(struct world *w) { return fk_send(w->counter, "{\"increase\":{},\"decrease\":{}}", FK_NUL_TERMINATED); }
static fk_status send_payload_not_object(struct world *w) { return fk_send(w->counter, "{\"increase\":5}", FK_NUL_TERMINATED); }
static fk_status send_payload_null(struct world *w) { return fk_send(w->counter, "{\"increase\":null}", FK_NUL_TERMINATED); }
static fk_status send_field_on_fieldless(struct world *w) { return fk_send(w->counter, "{\"increase\":{\"by\":5}}", FK_NUL_TERMINATED); }
static fk_status send_field_wrong_type(struct world *w) { return fk_send(w->answer, "{\"answerChanged\":{\"text\":5}}", FK_NUL_TERMINATED); }
static fk_status send_field_missing(struct world *w) { return fk_send(w->answer, "{\"answerChanged\":{}}", FK_NUL_TERMINATED); }
static fk_status send_field_missing_bare(struct world *w) { return fk_send(w->answer, "\"answerChanged\"", FK_NUL_TERMINATED); }
static fk_status send_field_unknown(struct world *w) { return fk_send(w->answer, "{\"answerChanged\":{\"text\":\"a\",\"txet\":\"b\"}}", FK_NUL_TERMINATED); }
static fk_status send_field_null(struct world *w) { return fk_send(w->answer, "{\"answerChanged\":{\"text\":null}}", FK_NUL_TERMINATED); }

/* ---- handles ---- */
static fk_status send_dead(struct world *w) { return fk_send(w->dead, "\"increase\"", FK_NUL_TERMINATED); }
static fk_status state_dead(struct world *w) { char *j = NULL; return fk_state(w->dead, &j, NULL, NULL); }
static fk_status version_dead(struct world *w) { uint64_t v; return fk_version(w->dead, &v); }
static fk_status subscribe_dead(struct world *w) { uint64_t s; return fk_subscribe(w->dead, noop_callback, NULL, &s); }
static fk_status unsubscribe_dead(struct world *w) { return fk_unsubscribe(w->dead, 1); }
static fk_status destroy_dead(struct world *w) { return fk_destroy(w->dead); }
static fk_status send_made_up_1(struct world *w) { (void)w; return fk_send(1, "\"increase\"", FK_NUL_TERMINATED); }
static fk_status send_made_up_42(struct world *w) { (void)w; return fk_send(42, "\"increase\"", FK_NUL_TERMINATED); }
static fk_status state_made_up_max(struct world *w) { (void)w; char *j = NULL; return fk_state(UINT64_MAX, &j, NULL, NULL); }
static fk_status send_zero(struct world *w) { (void)w; return fk_send(0, "\"increase\"", FK_NUL_TERMINATED); }
static fk_status destroy_zero(struct world *w) { (void)w; return fk_destroy(0); }
static fk_status destroy_twice(struct world *w) {
    (void)w;
    fk_instance i;
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &i) != FK_OK) return -1;
    if (fk_destroy(i) != FK_OK) return -1;
    return fk_destroy(i);
}

/* ---- creation options ---- */
static fk_status options(const char *json) { fk_instance i; return fk_create_with_options("counter", FK_NUL_TERMINATED, json, FK_NUL_TERMINATED, &i); }
static fk_status options_malformed(struct world *w) { (void)w; return options("{\"seed\":"); }
static fk_status options_not_object(struct world *w) { (void)w; return options("[]"); }
static fk_status options_unknown_key(struct world *w) { (void)w; return options("{\"sead\":1}"); }
static fk_status options_negative_seed(struct world *w) { (void)w; return options("{\"seed\":-1}"); }
static fk_status options_text_seed(struct world *w) { (void)w; return options("{\"seed\":\"42\"}"); }
/* Past Int64 a JSON number is read as a double, its last digits lost: refused, asking for digits. */
static fk_status options_big_number_seed(struct world *w) { (void)w; return options("{\"seed\":18446744073709551615}"); }
static fk_status options_bad_clock(struct world *w) { (void)w; return options("{\"clock\":\"lunar\"}"); }
static fk_status options_bad_requests(struct world *w) { (void)w; return options("{\"requests\":\"pigeon\"}"); }
static fk_status options_settings_not_object(struct world *w) { (void)w; return options("{\"settings\":true}"); }
static fk_status wifi_options(const char *json) {
    fk_instance i = 0;
    fk_status status = fk_create_with_options("wifi", FK_NUL_TERMINATED, json, FK_NUL_TERMINATED, &i);
    if (status == FK_OK) fk_destroy(i);
    return status;
}
static fk_status options_unknown_setting(struct world *w) { (void)w; return wifi_options("{\"settings\":{\"liveScna\":false}}"); }
static fk_status options_setting_of_wrong_type(struct world *w) { (void)w; return wifi_options("{\"settings\":{\"liveScan\":0}}"); }
static fk_status options_setting_without_settings(struct world *w) { (void)w; return options("{\"settings\":{\"liveScan\":false}}"); }
static fk_status options_bad_state(struct world *w) { (void)w; return options("{\"state\":{\"value\":true,\"isReset\":false,\"alert\":null}}"); }
static fk_status create_state_extra_field(struct world *w) { (void)w; fk_instance i; return fk_create("counter", FK_NUL_TERMINATED, "{\"value\":3,\"isReset\":false,\"count\":3}", FK_NUL_TERMINATED, &i); }
static fk_status options_state_version_without_state(struct world *w) { (void)w; return options("{\"stateVersion\":1}"); }
static fk_status options_state_version_zero(struct world *w) { (void)w; return options("{\"state\":{\"value\":1,\"isReset\":false},\"stateVersion\":0}"); }
static fk_status options_state_from_the_future(struct world *w) { (void)w; return options("{\"state\":{\"value\":1,\"isReset\":false},\"stateVersion\":2}"); }
static fk_status options_null_out(struct world *w) { (void)w; return fk_create_with_options("counter", FK_NUL_TERMINATED, NULL, 0, NULL); }
static fk_status options_unknown_feature(struct world *w) { (void)w; fk_instance i; return fk_create_with_options("nope", FK_NUL_TERMINATED, NULL, 0, &i); }

/* ---- time and host requests ---- */
static fk_status advance_system_clock(struct world *w) { return fk_advance_clock(w->counter, 1000); }
static fk_status advance_dead(struct world *w) { return fk_advance_clock(w->dead, 1000); }
static fk_status handler_dead(struct world *w) { return fk_set_request_handler(w->dead, NULL, NULL); }
static fk_status poll_null_out(struct world *w) { return fk_poll_request(w->counter, NULL, NULL); }
static fk_status poll_dead(struct world *w) { char *j; return fk_poll_request(w->dead, &j, NULL); }
static fk_status respond_null(struct world *w) { return fk_respond(w->counter, 1, NULL, 0); }
static fk_status respond_malformed(struct world *w) { return fk_respond(w->counter, 1, "{\"name\"", FK_NUL_TERMINATED); }
static fk_status respond_unknown(struct world *w) { return fk_respond(w->counter, 77, "{}", FK_NUL_TERMINATED); }
static fk_status respond_dead(struct world *w) { return fk_respond(w->dead, 1, "{}", FK_NUL_TERMINATED); }
static fk_status fail_null(struct world *w) { return fk_fail_request(w->counter, 1, NULL, 0); }
static fk_status fail_bad_utf8(struct world *w) { return fk_fail_request(w->counter, 1, "down\xff", FK_NUL_TERMINATED); }
static fk_status fail_unknown(struct world *w) { return fk_fail_request(w->counter, 77, "down", FK_NUL_TERMINATED); }

static fk_status patch_null_out(struct world *w) { return fk_state_patch(w->counter, 0, NULL, NULL, NULL); }
static fk_status patch_dead(struct world *w) { char *j; return fk_state_patch(w->dead, 0, &j, NULL, NULL); }

/* ---- caller-owned buffers: fk_state_into, fk_send_and_read ---- */
static char out_data[256];
/* A good buffer, as a caller sets it up: data and capacity. */
static fk_buffer *good_buffer(void) {
    static fk_buffer b;
    b.data = out_data; b.capacity = sizeof out_data; b.length = 0; b.version = 0;
    return &b;
}
static fk_status into_dead(struct world *w) { return fk_state_into(w->dead, good_buffer()); }
static fk_status into_made_up_42(struct world *w) { (void)w; return fk_state_into(42, good_buffer()); }
static fk_status into_zero(struct world *w) { (void)w; return fk_state_into(0, good_buffer()); }
static fk_status into_null_buffer(struct world *w) { return fk_state_into(w->counter, NULL); }
static fk_status into_null_data(struct world *w) { fk_buffer b = {NULL, 16, 0, 0}; return fk_state_into(w->counter, &b); }
static fk_status into_null_data_capacity_1(struct world *w) { fk_buffer b = {NULL, 1, 0, 0}; return fk_state_into(w->answer, &b); }
/* Not an error: NULL data with capacity 0 asks for the length alone. */
static fk_status into_length_only(struct world *w) {
    char *json; size_t expected; uint64_t version;
    if (fk_state(w->counter, &json, &expected, &version) != FK_OK) return -1;
    fk_free(json);
    fk_buffer b = {NULL, 0, 999, 999};
    fk_status status = fk_state_into(w->counter, &b);
    if (status == FK_OK && (b.length != expected || b.version != version || b.data != NULL || b.capacity != 0)) return -1;
    return status;
}
static fk_status read_dead(struct world *w) { return fk_send_and_read(w->dead, "\"increase\"", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_made_up_42(struct world *w) { (void)w; return fk_send_and_read(42, "\"increase\"", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_zero(struct world *w) { (void)w; return fk_send_and_read(0, "\"increase\"", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_null_input(struct world *w) { return fk_send_and_read(w->counter, NULL, 0, good_buffer()); }
/* A good input with a bad buffer: the input must not be applied. */
static fk_status read_null_buffer(struct world *w) { return fk_send_and_read(w->counter, "\"increase\"", FK_NUL_TERMINATED, NULL); }
static fk_status read_null_data(struct world *w) { fk_buffer b = {NULL, 16, 0, 0}; return fk_send_and_read(w->counter, "\"increase\"", FK_NUL_TERMINATED, &b); }
static fk_status read_null_data_answer(struct world *w) {
    fk_buffer b = {NULL, 1, 0, 0};
    return fk_send_and_read(w->answer, "{\"answerChanged\":{\"text\":\"red\"}}", FK_NUL_TERMINATED, &b);
}
static fk_status read_empty(struct world *w) { return fk_send_and_read(w->counter, "", 0, good_buffer()); }
static fk_status read_truncated(struct world *w) { return fk_send_and_read(w->counter, "{\"increase\":", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_unquoted(struct world *w) { return fk_send_and_read(w->counter, "increase", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_bad_utf8(struct world *w) { return fk_send_and_read(w->counter, "\"\xc3\x28\"", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_length_too_big(struct world *w) { return fk_send_and_read(w->counter, "\"increase\"", FK_NUL_TERMINATED - 1, good_buffer()); }
static fk_status read_unknown_case(struct world *w) { return fk_send_and_read(w->counter, "\"jump\"", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_unknown_case_small_buffer(struct world *w) { fk_buffer b = {out_data, 1, 0, 0}; return fk_send_and_read(w->counter, "{\"jump\":{}}", FK_NUL_TERMINATED, &b); }
static fk_status read_unknown_case_length_only(struct world *w) { fk_buffer b = {NULL, 0, 0, 0}; return fk_send_and_read(w->counter, "\"jump\"", FK_NUL_TERMINATED, &b); }
static fk_status read_field_wrong_type(struct world *w) { return fk_send_and_read(w->answer, "{\"answerChanged\":{\"text\":5}}", FK_NUL_TERMINATED, good_buffer()); }
static fk_status read_field_on_fieldless(struct world *w) { return fk_send_and_read(w->counter, "{\"increase\":{\"by\":5}}", FK_NUL_TERMINATED, good_buffer()); }

/* ---- out-pointers and subscriptions ---- */
static fk_status state_null_out(struct world *w) { return fk_state(w->counter, NULL, NULL, NULL); }
static fk_status version_null_out(struct world *w) { return fk_version(w->counter, NULL); }
static fk_status manifest_null_out(struct world *w) { (void)w; return fk_manifest(NULL, NULL); }
static fk_status summary_null_out(struct world *w) { (void)w; return fk_manifest_summary(NULL, NULL); }
static fk_status feature_manifest_null_name(struct world *w) { char *j; (void)w; return fk_feature_manifest(NULL, 0, &j, NULL); }
static fk_status feature_manifest_null_out(struct world *w) { (void)w; return fk_feature_manifest("counter", FK_NUL_TERMINATED, NULL, NULL); }
static fk_status feature_manifest_unknown(struct world *w) { char *j; (void)w; return fk_feature_manifest("teleporter", FK_NUL_TERMINATED, &j, NULL); }
static fk_status feature_manifest_bad_utf8(struct world *w) { char *j; (void)w; return fk_feature_manifest("count\xff", FK_NUL_TERMINATED, &j, NULL); }
static fk_status subscribe_null_callback(struct world *w) { uint64_t s; return fk_subscribe(w->counter, NULL, NULL, &s); }
static fk_status subscribe_null_out(struct world *w) { return fk_subscribe(w->counter, noop_callback, NULL, NULL); }
static fk_status unsubscribe_unknown(struct world *w) { return fk_unsubscribe(w->counter, 12345); }
static fk_status unsubscribe_twice(struct world *w) {
    uint64_t s;
    if (fk_subscribe(w->counter, noop_callback, NULL, &s) != FK_OK) return -1;
    if (fk_unsubscribe(w->counter, s) != FK_OK) return -1;
    return fk_unsubscribe(w->counter, s);
}

static const struct row rows[] = {
    {"create: NULL feature name", create_null_feature, FK_ERR_NULL_ARGUMENT, {"feature", "NULL"}},
    {"create: NULL out_instance", create_null_out, FK_ERR_NULL_ARGUMENT, {"out_instance"}},
    {"create: unknown feature", create_unknown_feature, FK_ERR_UNKNOWN_FEATURE, {"\"teleporter\"", "counter", "answer"}},
    {"create: feature name not UTF-8", create_feature_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8"}},
    {"create: state malformed", create_state_malformed, FK_ERR_MALFORMED_JSON, {"state", "line 1, column 10"}},
    {"create: state empty", create_state_empty, FK_ERR_MALFORMED_JSON, {"empty"}},
    {"create: state not UTF-8", create_state_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8", "byte 10"}},
    {"create: state field of the wrong type", create_state_wrong_type, FK_ERR_INVALID_STATE, {"$.value", "expected an integer, found a string"}},
    {"create: state missing a field", create_state_missing_field, FK_ERR_INVALID_STATE, {"missing field \"isReset\""}},
    {"create: state not an object", create_state_not_object, FK_ERR_INVALID_STATE, {"expected an object, found an array"}},
    {"create: state number too large", create_state_too_big, FK_ERR_INVALID_STATE, {"$.value", "Int"}},
    {"send: NULL input", send_null, FK_ERR_NULL_ARGUMENT, {"input_json"}},
    {"send: empty input", send_empty, FK_ERR_MALFORMED_JSON, {"empty"}},
    {"send: only whitespace", send_whitespace, FK_ERR_MALFORMED_JSON, {"whitespace"}},
    {"send: truncated JSON", send_truncated, FK_ERR_MALFORMED_JSON, {"line 1, column 13", "end of input"}},
    {"send: trailing garbage", send_trailing, FK_ERR_MALFORMED_JSON, {"'x'", "after the end"}},
    {"send: unquoted case name", send_unquoted, FK_ERR_MALFORMED_JSON, {"'i'", "column 1"}},
    {"send: length beyond any buffer", send_length_too_big, FK_ERR_INVALID_ARGUMENT, {"length"}},
    {"send: nesting 100000 deep", send_deep, FK_ERR_MALFORMED_JSON, {"nesting deeper than"}},
    {"send: invalid UTF-8", send_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8", "byte 1"}},
    {"send: lone continuation byte", send_lone_continuation, FK_ERR_INVALID_UTF8, {"byte 4"}},
    {"send: UTF-8 encoded surrogate", send_surrogate_bytes, FK_ERR_INVALID_UTF8, {"UTF-8"}},
    {"send: unknown input case", send_unknown_case, FK_ERR_UNKNOWN_INPUT, {"\"jump\"", "increase, decrease, reset, show, alertDismissed"}},
    {"send: unknown input case as object", send_unknown_case_object, FK_ERR_UNKNOWN_INPUT, {"\"jump\"", "valid inputs"}},
    {"send: unknown input case holding a NUL", send_unknown_case_with_nul, FK_ERR_UNKNOWN_INPUT, {"\"jump\\u0000x\"", "valid inputs"}},
    {"send: a number is not an input", send_number, FK_ERR_INVALID_INPUT, {"case name", "found a number"}},
    {"send: object with two keys", send_two_keys, FK_ERR_INVALID_INPUT, {"exactly one key", "2 keys"}},
    {"send: payload is not an object", send_payload_not_object, FK_ERR_INVALID_INPUT, {"\"increase\"", "found a number"}},
    {"send: payload is null", send_payload_null, FK_ERR_INVALID_INPUT, {"\"increase\"", "takes no fields", "found null"}},
    {"send: field on an input without fields", send_field_on_fieldless, FK_ERR_INVALID_INPUT, {"no field \"by\"", "takes no fields"}},
    {"send: field of the wrong type", send_field_wrong_type, FK_ERR_INVALID_INPUT, {"\"answerChanged\"", "\"text\"", "expected a string, found a number"}},
    {"send: missing field", send_field_missing, FK_ERR_INVALID_INPUT, {"missing field \"text\"", "text: string"}},
    {"send: bare name of an input with fields", send_field_missing_bare, FK_ERR_INVALID_INPUT, {"missing field \"text\""}},
    {"send: unknown field", send_field_unknown, FK_ERR_INVALID_INPUT, {"no field \"txet\"", "text: string"}},
    {"send: null for a required field", send_field_null, FK_ERR_INVALID_INPUT, {"\"text\"", "expected a string, found null"}},
    {"send: destroyed instance", send_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"state: destroyed instance", state_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"version: destroyed instance", version_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"subscribe: destroyed instance", subscribe_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"unsubscribe: destroyed instance", unsubscribe_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"destroy: destroyed instance", destroy_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"destroy: twice", destroy_twice, FK_ERR_INVALID_HANDLE, {"destroyed"}},
    {"send: made-up handle 1", send_made_up_1, FK_ERR_INVALID_HANDLE, {"instance 1 "}},
    {"send: made-up handle 42", send_made_up_42, FK_ERR_INVALID_HANDLE, {"instance 42 "}},
    {"state: made-up handle UINT64_MAX", state_made_up_max, FK_ERR_INVALID_HANDLE, {"18446744073709551615"}},
    {"send: handle 0", send_zero, FK_ERR_INVALID_HANDLE, {"0"}},
    {"destroy: handle 0 does nothing", destroy_zero, FK_OK, {NULL}},
    {"state: NULL out_json", state_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"version: NULL out_version", version_null_out, FK_ERR_NULL_ARGUMENT, {"out_version"}},
    {"manifest: NULL out_json", manifest_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"manifest summary: NULL out_json", summary_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"feature manifest: NULL feature name", feature_manifest_null_name, FK_ERR_NULL_ARGUMENT, {"feature", "NULL"}},
    {"feature manifest: NULL out_json", feature_manifest_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"feature manifest: unknown feature", feature_manifest_unknown, FK_ERR_UNKNOWN_FEATURE, {"\"teleporter\"", "counter, answer, home, wifi, profile"}},
    {"feature manifest: feature name not UTF-8", feature_manifest_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8"}},
    {"subscribe: NULL callback", subscribe_null_callback, FK_ERR_NULL_ARGUMENT, {"callback"}},
    {"subscribe: NULL out_subscription", subscribe_null_out, FK_ERR_NULL_ARGUMENT, {"out_subscription"}},
    {"unsubscribe: unknown subscription", unsubscribe_unknown, FK_ERR_UNKNOWN_SUBSCRIPTION, {"12345"}},
    {"unsubscribe: twice", unsubscribe_twice, FK_ERR_UNKNOWN_SUBSCRIPTION, {"no subscription"}},
    {"options: malformed JSON", options_malformed, FK_ERR_MALFORMED_JSON, {"options", "line 1"}},
    {"options: not an object", options_not_object, FK_ERR_INVALID_ARGUMENT, {"JSON object", "found an array"}},
    {"options: unknown key", options_unknown_key, FK_ERR_INVALID_ARGUMENT, {"\"sead\"", "state, seed, clock, requests, settings"}},
    {"options: negative seed", options_negative_seed, FK_ERR_INVALID_ARGUMENT, {"\"seed\"", "unsigned integer", "-1"}},
    {"options: seed as text", options_text_seed, FK_ERR_INVALID_ARGUMENT, {"\"seed\"", "\"42\""}},
    {"options: seed past 2^63 as a number", options_big_number_seed, FK_ERR_INVALID_ARGUMENT, {"\"seed\"", "string of digits"}},
    {"options: unknown clock", options_bad_clock, FK_ERR_INVALID_ARGUMENT, {"\"clock\"", "\"system\" or \"manual\"", "lunar"}},
    {"options: unknown requests mode", options_bad_requests, FK_ERR_INVALID_ARGUMENT, {"\"requests\"", "\"builtin\" or \"host\""}},
    {"options: settings not an object", options_settings_not_object, FK_ERR_INVALID_ARGUMENT, {"\"settings\"", "found a boolean"}},
    {"options: a setting the feature does not have", options_unknown_setting, FK_ERR_INVALID_ARGUMENT, {"\"wifi\"", "\"liveScna\"", "its settings are liveScan"}},
    {"options: a setting of the wrong type", options_setting_of_wrong_type, FK_ERR_INVALID_ARGUMENT, {"\"liveScan\"", "a boolean", "found 0"}},
    {"options: a setting for a feature without settings", options_setting_without_settings, FK_ERR_INVALID_ARGUMENT, {"\"counter\"", "no settings"}},
    {"options: state that does not fit", options_bad_state, FK_ERR_INVALID_STATE, {"$.value", "expected an integer, found a boolean"}},
    {"create: state with a field the feature lacks", create_state_extra_field, FK_ERR_INVALID_STATE, {"$.count", "does not have", "\"stateVersion\""}},
    {"options: stateVersion without a state", options_state_version_without_state, FK_ERR_INVALID_ARGUMENT, {"\"stateVersion\"", "no \"state\""}},
    {"options: stateVersion 0", options_state_version_zero, FK_ERR_INVALID_ARGUMENT, {"\"stateVersion\"", "from 1", "found 0"}},
    {"options: state from a newer version", options_state_from_the_future, FK_ERR_INVALID_STATE, {"state version 2 of feature \"counter\"", "newer than this library's version 1"}},
    {"options: NULL out_instance", options_null_out, FK_ERR_NULL_ARGUMENT, {"out_instance"}},
    {"options: unknown feature", options_unknown_feature, FK_ERR_UNKNOWN_FEATURE, {"\"nope\"", "counter, answer, home, wifi, profile"}},
    {"advance: system clock", advance_system_clock, FK_ERR_INVALID_ARGUMENT, {"system clock", "{\"clock\":\"manual\"}"}},
    {"advance: destroyed instance", advance_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"request handler: destroyed instance", handler_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"poll: NULL out_json", poll_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"poll: destroyed instance", poll_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"respond: NULL result", respond_null, FK_ERR_NULL_ARGUMENT, {"result_json"}},
    {"respond: malformed result", respond_malformed, FK_ERR_MALFORMED_JSON, {"response", "line 1"}},
    {"respond: unknown request", respond_unknown, FK_ERR_UNKNOWN_REQUEST, {"request 77"}},
    {"respond: destroyed instance", respond_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"fail: NULL message", fail_null, FK_ERR_NULL_ARGUMENT, {"message"}},
    {"fail: message not UTF-8", fail_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8"}},
    {"fail: unknown request", fail_unknown, FK_ERR_UNKNOWN_REQUEST, {"request 77"}},
    {"state patch: NULL out_json", patch_null_out, FK_ERR_NULL_ARGUMENT, {"out_json"}},
    {"state patch: destroyed instance", patch_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"state into: destroyed instance", into_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"state into: made-up handle 42", into_made_up_42, FK_ERR_INVALID_HANDLE, {"instance 42 "}},
    {"state into: handle 0", into_zero, FK_ERR_INVALID_HANDLE, {"0"}},
    {"state into: NULL buffer", into_null_buffer, FK_ERR_NULL_ARGUMENT, {"buffer", "NULL"}},
    {"state into: NULL data with capacity 16", into_null_data, FK_ERR_NULL_ARGUMENT, {"data", "NULL", "16"}},
    {"state into: NULL data with capacity 1", into_null_data_capacity_1, FK_ERR_NULL_ARGUMENT, {"data", "NULL"}},
    {"state into: NULL data with capacity 0 gives the length", into_length_only, FK_OK, {NULL}},
    {"send and read: destroyed instance", read_dead, FK_ERR_INVALID_HANDLE, {"not a live instance"}},
    {"send and read: made-up handle 42", read_made_up_42, FK_ERR_INVALID_HANDLE, {"instance 42 "}},
    {"send and read: handle 0", read_zero, FK_ERR_INVALID_HANDLE, {"0"}},
    {"send and read: NULL input", read_null_input, FK_ERR_NULL_ARGUMENT, {"input_json"}},
    {"send and read: NULL buffer, input not applied", read_null_buffer, FK_ERR_NULL_ARGUMENT, {"buffer", "NULL"}},
    {"send and read: NULL data with capacity 16, input not applied", read_null_data, FK_ERR_NULL_ARGUMENT, {"data", "NULL", "16"}},
    {"send and read: NULL data with capacity 1, answer not applied", read_null_data_answer, FK_ERR_NULL_ARGUMENT, {"data", "NULL"}},
    {"send and read: empty input", read_empty, FK_ERR_MALFORMED_JSON, {"empty"}},
    {"send and read: truncated JSON", read_truncated, FK_ERR_MALFORMED_JSON, {"line 1, column 13", "end of input"}},
    {"send and read: unquoted case name", read_unquoted, FK_ERR_MALFORMED_JSON, {"'i'", "column 1"}},
    {"send and read: invalid UTF-8", read_bad_utf8, FK_ERR_INVALID_UTF8, {"UTF-8", "byte 1"}},
    {"send and read: length beyond any buffer", read_length_too_big, FK_ERR_INVALID_ARGUMENT, {"length"}},
    {"send and read: unknown input case", read_unknown_case, FK_ERR_UNKNOWN_INPUT, {"\"jump\"", "increase, decrease, reset, show, alertDismissed"}},
    {"send and read: unknown input case, buffer too small", read_unknown_case_small_buffer, FK_ERR_UNKNOWN_INPUT, {"\"jump\"", "valid inputs"}},
    {"send and read: unknown input case, length only", read_unknown_case_length_only, FK_ERR_UNKNOWN_INPUT, {"\"jump\""}},
    {"send and read: field of the wrong type", read_field_wrong_type, FK_ERR_INVALID_INPUT, {"\"answerChanged\"", "\"text\"", "expected a string, found a number"}},
    {"send and read: field on an input without fields", read_field_on_fieldless, FK_ERR_INVALID_INPUT, {"no field \"by\"", "takes no fields"}},
};

struct snapshot {
    char *json;
    uint64_t version;         /* from fk_state */
    uint64_t counted_version; /* from fk_version */
};

static struct snapshot take(fk_instance instance) {
    struct snapshot s = {NULL, 0, 0};
    if (fk_state(instance, &s.json, NULL, &s.version) != FK_OK || fk_version(instance, &s.counted_version) != FK_OK) {
        fprintf(stderr, "cannot read a live instance's state: %s\n", fk_last_error_message());
        exit(2);
    }
    return s;
}

static int same(struct snapshot a, struct snapshot b) {
    return a.version == b.version && a.counted_version == b.counted_version && a.version == a.counted_version &&
           strcmp(a.json, b.json) == 0;
}

int main(void) {
    if (fk_abi_version() != FK_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch\n");
        return 2;
    }
    size_t half = (sizeof deep - 3) / 2;
    memset(deep, '[', half);
    memset(deep + half, ']', half);

    struct world w;
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &w.counter) != FK_OK ||
        fk_create("answer", FK_NUL_TERMINATED, NULL, 0, &w.answer) != FK_OK ||
        fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &w.dead) != FK_OK) {
        fprintf(stderr, "setup: %s\n", fk_last_error_message());
        return 2;
    }
    fk_send(w.counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_send(w.counter, "\"increase\"", FK_NUL_TERMINATED);
    fk_send(w.answer, "{\"answerChanged\":{\"text\":\"blue\"}}", FK_NUL_TERMINATED);
    fk_destroy(w.dead);

    int passed = 0, failed = 0;
    size_t count = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < count; i++) {
        const struct row *r = &rows[i];
        struct snapshot counter_before = take(w.counter), answer_before = take(w.answer);
        fk_status status = r->run(&w);
        /* Copy the message before any other call replaces it. */
        char message[1024];
        snprintf(message, sizeof message, "%s", fk_last_error_message());
        struct snapshot counter_after = take(w.counter), answer_after = take(w.answer);

        const char *problem = NULL;
        char detail[1300] = "";
        if (status != r->expected) {
            snprintf(detail, sizeof detail, "status %s, expected %s (%s)", fk_status_name(status), fk_status_name(r->expected), message);
            problem = detail;
        }
        for (int k = 0; !problem && k < 3 && r->words[k]; k++) {
            if (!strstr(message, r->words[k])) {
                snprintf(detail, sizeof detail, "message \"%s\" lacks \"%s\"", message, r->words[k]);
                problem = detail;
            }
        }
        if (!problem && r->expected != FK_OK && message[0] == '\0') problem = "no message";
        if (!problem && (!same(counter_before, counter_after) || !same(answer_before, answer_after))) {
            problem = "a live instance's state or version changed";
        }
        if (problem) {
            failed++;
            printf("FAIL %s: %s\n", r->name, problem);
        } else {
            passed++;
            printf("ok   %s -> %s: %s\n", r->name, fk_status_name(status), message);
        }
        fk_free(counter_before.json); fk_free(counter_after.json);
        fk_free(answer_before.json); fk_free(answer_after.json);
    }

    /* The message is cleared by the next successful call. */
    uint64_t v;
    fk_send(w.counter, "\"jump\"", FK_NUL_TERMINATED);
    if (fk_version(w.counter, &v) == FK_OK && fk_last_error_message()[0] == '\0') {
        passed++;
        printf("ok   message cleared by a successful call\n");
    } else {
        failed++;
        printf("FAIL message not cleared by a successful call: \"%s\"\n", fk_last_error_message());
    }
    /* The functions that return no status leave it: a caller may free a result, ask a
    ** status's name or read a limit before it prints the message. */
    fk_send(w.counter, "\"jump\"", FK_NUL_TERMINATED);
    char kept[1024];
    snprintf(kept, sizeof kept, "%s", fk_last_error_message());
    (void)fk_status_name(FK_ERR_UNKNOWN_INPUT);
    fk_free(NULL);
    (void)fk_limit(FK_LIMIT_INSTANCES, -1);
    (void)fk_limit(12345, -1);
    (void)fk_abi_version();
    (void)fk_library_version();
    if (kept[0] != '\0' && strcmp(kept, fk_last_error_message()) == 0) {
        passed++;
        printf("ok   message kept by the calls that return no status\n");
    } else {
        failed++;
        printf("FAIL message \"%s\" became \"%s\"\n", kept, fk_last_error_message());
    }
    if (strcmp(fk_status_name(999), "FK_ERR_UNKNOWN_STATUS") == 0 && strcmp(fk_status_name(FK_ERR_UNKNOWN_INPUT), "FK_ERR_UNKNOWN_INPUT") == 0) {
        passed++;
        printf("ok   status names\n");
    } else {
        failed++;
        printf("FAIL status names\n");
    }

    fk_destroy(w.counter);
    fk_destroy(w.answer);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
