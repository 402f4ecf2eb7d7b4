/*
 * wifi_screen_state.h: what examples/c/wifi_screen.c knows of the Wi-Fi screen, all of it
 * read from the feature's state but the cursor's place: the screen, the glyphs it draws
 * with, the layout's sizes, and reading the newest state. Static, for one `cc` line.
 */
#ifndef FUSIONKIT_EXAMPLES_WIFI_SCREEN_STATE_H
#define FUSIONKIT_EXAMPLES_WIFI_SCREEN_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusionkit.h"
#include "json_value.h"

/* ---------------------------------------------------------------------------
** The screen: what the main thread knows, all of it read from the state but the
** cursor's place (which row the arrow keys are on) and how far + moved the clock.
*/
#define MAX_ROWS 64

typedef struct {
    fk_instance wifi;
    bool manual_clock;
    uint64_t clock_seconds;
    json *state;             /* the newest state read */
    uint64_t version;        /* its version */
    char *cursor_id;         /* the id of the network the cursor is on */
    int cursor;              /* its row */
    char message[256];       /* the library's last refusal, shown at the bottom */
} screen;

/* What the screen draws with: UTF-8 where the locale's character set is UTF-8, else
** ASCII, so that a terminal under LANG=C shows bars and locks instead of garbage. */
typedef struct {
    const char *lit[3], *unlit, *open, *close; /* signal bars: lit, unlit, around them */
    const char *check, *lock, *mask, *ellipsis, *separator, *arrows;
} glyph_set;

static const glyph_set utf8_glyphs = {{"▂", "▄", "▆"}, "·", "", "", "✓", "🔒", "•", "…", " · ", "↑↓"};
static const glyph_set ascii_glyphs = {{"#", "#", "#"}, ".", "[", "]", "*", "[L]", "*", "...", " | ", "Up/Down"};
static const glyph_set *glyphs = &utf8_glyphs;

/* The layout's sizes. The list needs its three title lines and three of its own (a heading and two rows), and
** room for its widest fixed text ("Wi-Fi is off. Press w to turn it on."). A sheet is a
** box of SHEET_HEIGHT rows from row SHEET_TOP (row SHEET_MIN_TOP in a short terminal,
** under the Wi-Fi switch) down to the message line; alerts are centered over it. Below
** the list or sheet: a blank line, the message line and the key hints. */
#define LIST_MIN_WIDTH 38
#define LIST_MIN_LINES 3
#define SHEET_HEIGHT 9
#define SHEET_MIN_WIDTH 40
#define SHEET_MAX_WIDTH 64
#define SHEET_TOP 6
#define SHEET_MIN_TOP 2
#define INCORRECT_PASSWORD_ALERT_WIDTH 46
#define FORGET_ALERT_WIDTH 50
#define ALERT_HEIGHT 7

static void note_failure(screen *s, fk_status status) {
    snprintf(s->message, sizeof s->message, "%s: %s", fk_status_name(status), fk_last_error_message());
}

/* Reads the newest state if the version moved. */
static void read_state(screen *s) {
    uint64_t version;
    if (s->state && fk_version(s->wifi, &version) == FK_OK && version == s->version) return;
    char *json_text;
    size_t length;
    fk_status status = fk_state(s->wifi, &json_text, &length, &version);
    if (status != FK_OK) { note_failure(s, status); return; }
    json *parsed = json_parse(json_text, length);
    fk_free(json_text);
    if (!parsed) { snprintf(s->message, sizeof s->message, "could not read the state"); return; }
    json_free(s->state);
    s->state = parsed;
    s->version = version;
}

/* The network rows, top to bottom: the selected network, then the others. */
static int network_rows(const json *state, const json *rows[MAX_ROWS]) {
    int count = 0;
    const json *selected = member(state, "selectedNetwork");
    if (is_object(selected)) rows[count++] = selected;
    const json *others = member(state, "otherNetworks");
    if (others && others->type == J_ARRAY)
        for (const json *n = others->first; n && count < MAX_ROWS; n = n->next)
            if (is_object(n)) rows[count++] = n;
    return count;
}

/* Keeps the cursor on the same network when the rows move (a network joined moves
** to the top); on the same row when its network went away. */
static void place_cursor(screen *s) {
    const json *rows[MAX_ROWS];
    int count = network_rows(s->state, rows);
    if (count == 0) { s->cursor = 0; return; }
    if (s->cursor_id)
        for (int i = 0; i < count; i++)
            if (strcmp(text(rows[i], "id"), s->cursor_id) == 0) { s->cursor = i; return; }
    if (s->cursor >= count) s->cursor = count - 1;
    if (s->cursor < 0) s->cursor = 0;
    free(s->cursor_id);
    s->cursor_id = strdup(text(rows[s->cursor], "id"));
}


#endif
