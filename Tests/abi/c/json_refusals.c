/* What the parser refuses that RFC 8259 allows, as include/fusionkit.h states it
** ("What the parser refuses that RFC 8259 allows"): each refusal gives the stated
** status and a message saying why, and leaves the instance as it was; the cases the
** header says are read are not refused. Prints "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "fusionkit.h"

static int passed, failed;

static void check(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s\n", what);
    }
}

static uint64_t version_of(fk_instance counter) {
    char *json = NULL;
    size_t len = 0;
    uint64_t version = 0;
    if (fk_state(counter, &json, &len, &version) != FK_OK) return UINT64_MAX;
    fk_free(json);
    return version;
}

/* Sends `text` and expects `status`, with `reason` in the error message. */
static void expect(fk_instance counter, const char *text, size_t len, fk_status status, const char *reason) {
    uint64_t before = version_of(counter);
    fk_status got = fk_send(counter, text, len);
    const char *message = fk_last_error_message();
    char what[256];
    snprintf(what, sizeof what, "%.40s: status %d (expected %d), message \"%s\" (expected \"%s\")", text, (int)got,
             (int)status, message ? message : "(none)", reason);
    check(got == status && message != NULL && strstr(message, reason) != NULL, what);
    snprintf(what, sizeof what, "%.40s changed the state's version", text);
    check(version_of(counter) == before, what);
}

int main(void) {
    fk_instance counter = 0;
    if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) {
        printf("cannot create the counter: %s\n", fk_last_error_message());
        return 1;
    }
    fk_send(counter, "increase", FK_NUL_TERMINATED);

    /* Duplicate keys: nst/JSONTestSuite's y_object_duplicated_key(_and_value).json. */
    expect(counter, "{\"a\":\"b\",\"a\":\"c\"}", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "duplicate key \"a\"");
    expect(counter, "{\"a\":\"b\",\"a\":\"b\"}", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "duplicate key \"a\"");
    expect(counter, "{\"answerChanged\":{\"text\":\"a\",\"text\":\"b\"}}", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON,
           "duplicate key \"text\"");
    /* Not UTF-8, a byte order mark, lone or reversed surrogates. */
    expect(counter, "\"\xe9\"", FK_NUL_TERMINATED, FK_ERR_INVALID_UTF8, "UTF-8");
    expect(counter, "\xef\xbb\xbf\"increase\"", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "expected a value");
    expect(counter, "\"\\ud800\"", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "unpaired UTF-16 surrogate");
    expect(counter, "\"\\udd1e\\ud834\"", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "unpaired UTF-16 surrogate");
    /* Numbers a double cannot hold. */
    expect(counter, "1e400", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON, "number 1e400 is out of range");
    expect(counter, "{\"increase\":{\"by\":-1e400}}", FK_NUL_TERMINATED, FK_ERR_MALFORMED_JSON,
           "number -1e400 is out of range");
    /* Nesting past FK_LIMIT_JSON_DEPTH (512 unless set). */
    static char deep[2 * 513 + 1];
    memset(deep, '[', 513);
    memset(deep + 513, ']', 513);
    expect(counter, deep, 2 * 513, FK_ERR_MALFORMED_JSON, "FK_LIMIT_JSON_DEPTH");

    /* What the header says is read, not refused: the parser accepts it, and the
    ** counter then refuses it as an input (not an object with one case name). */
    const char *read_texts[] = {"123456789012345678901234567890", "1e-400", NULL};
    for (const char **text = read_texts; *text; text++) {
        expect(counter, *text, FK_NUL_TERMINATED, FK_ERR_INVALID_INPUT, "found a number");
    }
    static char nested[2 * 512 + 1];
    memset(nested, '[', 512);
    memset(nested + 512, ']', 512);
    expect(counter, nested, 2 * 512, FK_ERR_INVALID_INPUT, "found an array");

    fk_destroy(counter);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
