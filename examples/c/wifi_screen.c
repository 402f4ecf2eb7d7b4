/*
 * wifi_screen.c: the Wi-Fi settings screen of seed 003 in a terminal, with ncurses.
 *
 * A front end that decides nothing: every line it draws comes from the "wifi"
 * feature's state (read with fk_state and parsed by json_value.h's small reader),
 * and every key only sends an input. The feature says which network is selected,
 * which are the others, how many signal bars each shows, whether Join can be tapped
 * and whether the password can be edited; this file just draws that.
 *
 * Threads (wake_pipe.h): the subscription callback runs on whatever thread changed the
 * state; it never calls curses, it writes a byte to a pipe. The main thread poll()s the
 * terminal and the pipe, reads the newest state and redraws: only it calls curses.
 *
 * Keys
 *   list     Up/Down move, Enter taps the network (networkTapped), i opens its
 *            details (infoButtonTapped), w turns Wi-Fi on or off (wifiToggled), q quits
 *   connect  typing and Backspace edit the password (passwordChanged, the whole text),
 *            Enter joins (joinButtonTapped), Escape closes the sheet
 *            (destinationDismissed: the feature cancels a join under way)
 *   alert    Enter or Escape dismisses "Incorrect Password" (incorrectPasswordAlertDismissed)
 *   detail   f forgets (forgetNetworkButtonTapped), then y confirms
 *            (confirmForgetNetworkButtonTapped), n or Escape cancels
 *            (forgetAlertDismissed); Escape closes the sheet; q quits
 *   always   Ctrl-C quits; with --manual-clock, + moves the clock one second
 *            (fk_advance_clock), so + cannot be typed into a password then; on the
 *            connect sheet q is a letter of the password: Escape first, then q
 *
 * Options
 *   --manual-clock  time stands still until +: {"clock":"manual","settings":{"liveScan":false}}
 *   --live-scan     networks come and go (the feature's scan); else {"settings":{"liveScan":false}}
 *
 * Terminals as they come
 *   narrow   the signal bars and the lock keep their place at the right of a row; a
 *            network name too long for what is left is cut with an ellipsis
 *   short    the list scrolls to keep the cursor's row in view; the key hints wrap
 *   small    too small for what the state shows (a sheet needs 44 columns and 14 or 15
 *            lines, an alert 46 or 50 columns): "terminal too small: need WxH" instead,
 *            and no key acts but q (and Ctrl-C) until the terminal is resized to fit, so
 *            nothing is typed blind
 *   locale   checked at start (nl_langinfo(CODESET)): UTF-8 draws as designed; any
 *            other (LANG=C) draws in ASCII: bars [##.], lock [L], selected *, boxes
 *            + - |, "é" as "e" (curses_text.h), and keys outside ASCII are ignored
 *
 * Build (from the repository root, after `swift build`; the .h files beside it are included):
 *   cc -std=c11 -pthread -Iinclude examples/c/wifi_screen.c -L.build/debug \
 *      -lFusionExamples -lncursesw -Wl,-rpath,"$PWD/.build/debug" -o wifi_screen && ./wifi_screen
 */
#define _XOPEN_SOURCE 700
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "fusionkit.h"
#include "curses_text.h"
#include "json_value.h"
#include "wake_pipe.h"

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

/* ---------------------------------------------------------------------------
** Drawing
*/

/* The most bars a row has room for, whatever the state says its scale is. */
#define MAX_BARS 8

/* The signal as the state's signalBarsMaximum bars, lit as many as the network's
** signalBars; the lit glyphs grow along the scale. */
static void signal_bars(long bars, long maximum, char out[64]) {
    if (maximum > MAX_BARS) maximum = MAX_BARS;
    snprintf(out, 64, "%s", glyphs->open);
    for (long i = 0; i < maximum; i++) strcat(out, i < bars ? glyphs->lit[i * 3 / maximum] : glyphs->unlit);
    strcat(out, glyphs->close);
}

/* A network's row. The bars and the lock keep their columns at the right of the row
** (48 and 53 where there is room) whatever the width; the name gets what is left. */
static void draw_row(int y, const json *network, long bars_maximum, bool selected, bool under_cursor) {
    char bars[64], name[256];
    signal_bars(integer(network, "signalBars"), bars_maximum, bars);
    int row_width = COLS > 62 ? 60 : COLS - 2;
    int bars_x = COLS - 2 - (text_columns(bars) + 2 + text_columns(glyphs->lock));
    if (bars_x > 48) bars_x = 48;
    cut_text(text(network, "name"), bars_x - 8, glyphs->ellipsis, name, sizeof name);
    if (under_cursor) {
        attron(A_REVERSE);
        mvhline(y, 1, ' ', row_width);
    }
    put(y, 1, under_cursor ? ">" : " ", 1);
    put(y, 3, selected ? glyphs->check : " ", 1);
    put(y, 5, name, bars_x - 8);
    put(y, bars_x, bars, 0);
    if (flag(network, "isSecured")) put(y, bars_x + text_columns(bars) + 2, glyphs->lock, 0);
    if (under_cursor) attroff(A_REVERSE);
}

/* What is on screen, as the state says. */
typedef enum { SHOWS_LIST, SHOWS_CONNECT, SHOWS_PASSWORD_ALERT, SHOWS_DETAIL, SHOWS_FORGET_ALERT } shown_kind;

static shown_kind shown(const json *state) {
    const json *destination = member(state, "destination");
    const json *connect = member(destination, "connect");
    const json *detail = member(destination, "detail");
    if (is_object(connect))
        return flag(connect, "incorrectPasswordAlertIsPresented") ? SHOWS_PASSWORD_ALERT : SHOWS_CONNECT;
    if (is_object(detail)) return flag(detail, "forgetAlertIsPresented") ? SHOWS_FORGET_ALERT : SHOWS_DETAIL;
    return SHOWS_LIST;
}

/* The key hints for what is shown, wrapped between hints to `width` columns: a narrow
** terminal gets two lines rather than hints cut off. */
#define MAX_HELP_LINES 4
typedef struct {
    char lines[MAX_HELP_LINES][200];
    int count;
} help_text;

static void key_help(const screen *s, shown_kind kind, int width, help_text *help) {
    char move[32];
    snprintf(move, sizeof move, "%s move", glyphs->arrows);
    const char *hints[8];
    int n = 0;
    switch (kind) {
    case SHOWS_LIST:
        hints[n++] = move;
        hints[n++] = "Enter tap";
        hints[n++] = "i info";
        hints[n++] = "w Wi-Fi on/off";
        hints[n++] = "q quit";
        break;
    case SHOWS_CONNECT:
        hints[n++] = "type the password";
        hints[n++] = "Backspace erase";
        hints[n++] = "Enter join";
        hints[n++] = "Esc cancel";
        break;
    case SHOWS_PASSWORD_ALERT: hints[n++] = "Enter/Esc OK"; break;
    case SHOWS_DETAIL:
        hints[n++] = "f forget";
        hints[n++] = "Esc back";
        hints[n++] = "q quit";
        break;
    case SHOWS_FORGET_ALERT:
        hints[n++] = "y forget";
        hints[n++] = "n/Esc cancel";
        break;
    }
    if (s->manual_clock) hints[n++] = "+ clock +1s";
    help->count = 0;
    for (int i = 0; i < n; i++) {
        char *line = help->lines[help->count > 0 ? help->count - 1 : 0];
        if (help->count > 0 && text_columns(line) + text_columns(glyphs->separator) + text_columns(hints[i]) <= width) {
            size_t used = strlen(line);
            snprintf(line + used, sizeof help->lines[0] - used, "%s%s", glyphs->separator, hints[i]);
        } else if (help->count < MAX_HELP_LINES) {
            snprintf(help->lines[help->count++], sizeof help->lines[0], "%s", hints[i]);
        }
    }
}

/* The smallest terminal that shows what the state asks for whole. */
static void needed_size(const screen *s, int *columns, int *lines) {
    shown_kind kind = shown(s->state);
    int width = LIST_MIN_WIDTH, above = 3 + LIST_MIN_LINES;
    if (kind != SHOWS_LIST) width = SHEET_MIN_WIDTH + 4, above = SHEET_MIN_TOP + SHEET_HEIGHT;
    if (kind == SHOWS_PASSWORD_ALERT && width < INCORRECT_PASSWORD_ALERT_WIDTH) width = INCORRECT_PASSWORD_ALERT_WIDTH;
    if (kind == SHOWS_FORGET_ALERT && width < FORGET_ALERT_WIDTH) width = FORGET_ALERT_WIDTH;
    help_text help;
    key_help(s, kind, (COLS > width ? COLS : width) - 2, &help);
    *columns = width;
    *lines = above + 2 + help.count;
}

static bool fits(const screen *s) {
    int columns, lines;
    needed_size(s, &columns, &lines);
    return COLS >= columns && LINES >= lines;
}

/* Where an alert of w x h goes: centered on the screen, inside its sheet and below the
** sheet's title, so that what the alert is about stays in view. */
static void alert_origin(int sheet_top, int sheet_height, int w, int h, int *top, int *left) {
    *top = (LINES - h) / 2 + 1;
    if (*top > sheet_top + sheet_height - h) *top = sheet_top + sheet_height - h;
    if (*top < sheet_top + 2) *top = sheet_top + 2;
    *left = (COLS - w) / 2;
    if (*left < 0) *left = 0;
}

/* An alert's message (the feature's words, from the state) centered on up to `count`
** lines of `width` columns, broken at spaces; what does not fit ends in the ellipsis. */
static void put_message(int y, int left, int width, int count, const char *utf8) {
    char line[512];
    const char *p = utf8;
    for (int i = 0; i < count && *p; i++) {
        /* The end of the most whole words that fit on this line. */
        const char *fit = NULL, *end = p;
        for (;;) {
            while (*end && *end != ' ') end++;
            size_t length = (size_t)(end - p);
            if (length >= sizeof line) break;
            memcpy(line, p, length);
            line[length] = '\0';
            if (text_columns(line) > width) break;
            fit = end;
            if (!*end) break;
            end++;
        }
        if (!fit || (i == count - 1 && *fit)) {
            cut_text(p, width, glyphs->ellipsis, line, sizeof line);
            put_centered(y + i, left, width, line);
            return;
        }
        memcpy(line, p, (size_t)(fit - p));
        line[fit - p] = '\0';
        put_centered(y + i, left, width, line);
        p = *fit ? fit + 1 : fit;
    }
}

static void draw_connect(const json *connect, int top, int left, int width, int height) {
    const json *network = member(connect, "network");
    char line[300], name[256];
    draw_box(top, left, height, width);
    cut_text(text(network, "name"), width - 4 - 7, glyphs->ellipsis, name, sizeof name);
    snprintf(line, sizeof line, "Join \"%s\"", name);
    attron(A_BOLD);
    put(top + 1, left + 2, line, width - 4);
    attroff(A_BOLD);
    put(top + 2, left + 2, "Enter the password for this network.", width - 4);

    /* The password masked: one dot per character. */
    const char *password = text(connect, "password");
    buffer masked = {0};
    for (const char *p = password; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) append_text(&masked, glyphs->mask);
    put(top + 4, left + 2, "Password:", 0);
    put(top + 4, left + 12, masked.data ? masked.data : "", width - 16);
    if (flag(connect, "isPasswordEditable")) {
        wchar_t wide[512];
        size_t n = masked.data ? to_wide(masked.data, wide, 512) : 0;
        if (left + 12 + (int)n < left + width - 2) put(top + 4, left + 12 + (int)n, "_", 1);
    }
    free(masked.data);

    /* Join: dimmed exactly when the feature says it cannot be tapped. */
    int join_attributes = flag(connect, "isJoinEnabled") ? A_BOLD : A_DIM;
    attron(join_attributes);
    put(top + 6, left + 2, "[ Join ]", 0);
    attroff(join_attributes);
    snprintf(line, sizeof line, "Joining%s", glyphs->ellipsis);
    if (flag(connect, "isConnecting")) put(top + 6, left + 13, line, 0);

    if (flag(connect, "incorrectPasswordAlertIsPresented")) {
        int w = INCORRECT_PASSWORD_ALERT_WIDTH, h = ALERT_HEIGHT, alert_top, alert_left;
        alert_origin(top, height, w, h, &alert_top, &alert_left);
        const json *alert = member(connect, "incorrectPasswordAlert");
        draw_box(alert_top, alert_left, h, w);
        attron(A_BOLD);
        cut_text(text(alert, "title"), w - 2, glyphs->ellipsis, line, sizeof line);
        put_centered(alert_top + 1, alert_left + 1, w - 2, line);
        attroff(A_BOLD);
        put_message(alert_top + 2, alert_left + 1, w - 2, 2, text(alert, "message"));
        snprintf(line, sizeof line, "[ %s ]", text(alert, "actionLabel"));
        attron(A_REVERSE);
        put_centered(alert_top + 5, alert_left + 1, w - 2, line);
        attroff(A_REVERSE);
    }
}

static void draw_detail(const json *detail, long bars_maximum, int top, int left, int width, int height) {
    const json *network = member(detail, "network");
    char line[300], bars[64], name[256];
    draw_box(top, left, height, width);
    cut_text(text(network, "name"), width - 4 - 10, glyphs->ellipsis, name, sizeof name);
    snprintf(line, sizeof line, "Network \"%s\"", name);
    attron(A_BOLD);
    put(top + 1, left + 2, line, width - 4);
    attroff(A_BOLD);
    /* The feature's words, and the lock drawn beside them as in the rows. */
    snprintf(line, sizeof line, "Security: %s%s%s", text(network, "securityLabel"), flag(network, "isSecured") ? " " : "",
             flag(network, "isSecured") ? glyphs->lock : "");
    put(top + 3, left + 2, line, width - 4);
    signal_bars(integer(network, "signalBars"), bars_maximum, bars);
    snprintf(line, sizeof line, "Signal:   %s  %ld%%", bars, integer(network, "signalPercent"));
    put(top + 4, left + 2, line, width - 4);
    put(top + 6, left + 2, "[ Forget This Network ]", 0);

    if (flag(detail, "forgetAlertIsPresented")) {
        int w = FORGET_ALERT_WIDTH, h = ALERT_HEIGHT, alert_top, alert_left;
        alert_origin(top, height, w, h, &alert_top, &alert_left);
        const json *alert = member(detail, "forgetAlert");
        draw_box(alert_top, alert_left, h, w);
        cut_text(text(alert, "title"), w - 2, glyphs->ellipsis, line, sizeof line);
        attron(A_BOLD);
        put_centered(alert_top + 1, alert_left + 1, w - 2, line);
        attroff(A_BOLD);
        put_message(alert_top + 2, alert_left + 1, w - 2, 2, text(alert, "message"));
        snprintf(line, sizeof line, "[ y %s ]   [ n %s ]", text(alert, "actionLabel"), text(alert, "cancelLabel"));
        put_centered(alert_top + 5, alert_left + 1, w - 2, line);
    }
}

/* The list's lines, top to bottom: headings, network rows (with their row number, as
** the cursor counts them), the blank between the sections, or the off note. */
typedef struct {
    const char *text; /* a heading (bold) or the off note; NULL for a row or a blank */
    bool bold;
    const json *network;
    bool selected;
    int row;
} list_line;

static int list_lines(const json *state, list_line lines[MAX_ROWS + 4]) {
    int n = 0, row = 0;
    const json *selected = member(state, "selectedNetwork");
    if (is_object(selected)) {
        lines[n++] = (list_line){"My Network", true, NULL, false, -1};
        lines[n++] = (list_line){NULL, false, selected, true, row++};
        lines[n++] = (list_line){NULL, false, NULL, false, -1};
    }
    if (flag(state, "isOn")) {
        lines[n++] = (list_line){text(state, "otherNetworksHeading"), true, NULL, false, -1};
        const json *others = member(state, "otherNetworks");
        if (others && others->type == J_ARRAY)
            for (const json *o = others->first; o && row < MAX_ROWS; o = o->next)
                if (is_object(o)) lines[n++] = (list_line){NULL, false, o, false, row++};
    } else {
        lines[n++] = (list_line){"Wi-Fi is off. Press w to turn it on.", false, NULL, false, -1};
    }
    return n;
}

/* Instead of a screen the terminal cannot hold: what it needs. */
static void draw_too_small(int columns, int lines) {
    char line[120];
    int y = LINES / 2 - 1;
    if (y < 0) y = 0;
    snprintf(line, sizeof line, "terminal too small: need %dx%d", columns, lines);
    put_centered(y, 0, COLS, line);
    snprintf(line, sizeof line, "now %dx%d%sq quit", COLS, LINES, glyphs->separator);
    put_centered(y + 1, 0, COLS, line);
}

static void draw(const screen *s) {
    erase();
    char line[300];
    if (!s->state) {
        attron(A_BOLD);
        put(0, 1, "Wi-Fi", 0);
        attroff(A_BOLD);
        snprintf(line, sizeof line, "Reading the state%s", glyphs->ellipsis);
        put(2, 1, line, 0);
        refresh();
        return;
    }
    const json *state = s->state;
    int need_columns, need_lines;
    needed_size(s, &need_columns, &need_lines);
    if (COLS < need_columns || LINES < need_lines) {
        draw_too_small(need_columns, need_lines);
        refresh();
        return;
    }
    shown_kind kind = shown(state);
    help_text help;
    key_help(s, kind, COLS - 2, &help);
    int bottom = LINES - 2 - help.count; /* the blank line above the message line */

    attron(A_BOLD);
    put(0, 1, "Wi-Fi", 0);
    attroff(A_BOLD);
    put(1, 1, flag(state, "isOn") ? "Wi-Fi: On" : "Wi-Fi: Off", 0);
    if (s->manual_clock) {
        snprintf(line, sizeof line, "manual clock: %llus", (unsigned long long)s->clock_seconds);
        int x = COLS - 1 - text_columns(line);
        put(1, x > 40 ? 40 : x, line, 0);
    }

    /* The list, scrolled just enough to show the cursor's row. */
    list_line lines[MAX_ROWS + 4];
    int count = list_lines(state, lines), space = bottom - 3, first = 0;
    for (int i = 0; i < count; i++)
        if (lines[i].network && lines[i].row == s->cursor && i >= space) first = i - space + 1;
    for (int i = first; i < count && i - first < space; i++) {
        int y = 3 + i - first;
        if (lines[i].network)
            draw_row(y, lines[i].network, integer(state, "signalBarsMaximum"), lines[i].selected, lines[i].row == s->cursor);
        else if (lines[i].text) {
            if (lines[i].bold) attron(A_BOLD);
            put(y, 1, lines[i].text, 0);
            if (lines[i].bold) attroff(A_BOLD);
        }
    }

    const json *destination = member(state, "destination");
    const json *connect = member(destination, "connect");
    const json *detail = member(destination, "detail");
    int width = COLS - 4 < SHEET_MAX_WIDTH ? COLS - 4 : SHEET_MAX_WIDTH;
    int top = bottom - SHEET_HEIGHT < SHEET_TOP ? bottom - SHEET_HEIGHT : SHEET_TOP, height = bottom - top;
    int left = (COLS - width) / 2;
    if (kind != SHOWS_LIST)
        for (int y_sheet = top; y_sheet < bottom; y_sheet++) { move(y_sheet, 0); clrtoeol(); }
    if (is_object(connect)) draw_connect(connect, top, left, width, height);
    else if (is_object(detail)) draw_detail(detail, integer(state, "signalBarsMaximum"), top, left, width, height);
    if (s->message[0]) put(bottom + 1, 1, s->message, 0);
    attron(A_DIM);
    for (int i = 0; i < help.count; i++) put(bottom + 2 + i, 1, help.lines[i], 0);
    attroff(A_DIM);
    refresh();
}

/* ---------------------------------------------------------------------------
** Keys: each one sends an input (or moves the cursor); the feature decides.
*/
static void send_input(screen *s, const char *input) {
    if (!input) { snprintf(s->message, sizeof s->message, "out of memory"); return; }
    fk_status status = fk_send(s->wifi, input, FK_NUL_TERMINATED);
    if (status != FK_OK) note_failure(s, status);
    else s->message[0] = '\0';
}

static void send_with_text(screen *s, const char *input, const char *field, const char *value) {
    char *json_text = input_with_text(input, field, value);
    send_input(s, json_text);
    free(json_text);
}

static void send_password(screen *s, const char *password) {
    send_with_text(s, "passwordChanged", "password", password);
}

/* Handles one key; returns false to quit. */
static bool handle_key(screen *s, int kind, wint_t key) {
    read_state(s); /* the keys before this one may have changed it */
    place_cursor(s);
    const json *state = s->state;
    if (!state) return !(kind == OK && key == 'q');
    /* Too small to show what the state asks for: a key would act unseen (a password
    ** typed blind), so only q quits; a resize is handled by curses and redrawn. */
    if (!fits(s)) return !(kind == OK && key == 'q');
    bool function_key = kind == KEY_CODE_YES;
    bool enter = function_key ? key == KEY_ENTER : (key == '\n' || key == '\r');
    bool escape = !function_key && key == 27;
    bool backspace = function_key ? key == KEY_BACKSPACE : (key == 127 || key == 8);
    bool character = !function_key && key >= 0x20 && key != 0x7F && key < 0x110000 && !(key >= 0xD800 && key < 0xE000);
    /* Outside a UTF-8 locale a key past ASCII is a byte of unknown meaning: not a letter. */
    if (!text_is_utf8 && key >= 0x80) character = false;

    if (s->manual_clock && character && key == '+') {
        fk_status status = fk_advance_clock(s->wifi, 1000000000u);
        s->clock_seconds++;
        if (status != FK_OK) note_failure(s, status);
        else s->message[0] = '\0';
        return true;
    }

    const json *destination = member(state, "destination");
    const json *connect = member(destination, "connect");
    const json *detail = member(destination, "detail");

    if (is_object(connect)) {
        if (flag(connect, "incorrectPasswordAlertIsPresented")) {
            if (enter || escape) send_input(s, "\"incorrectPasswordAlertDismissed\"");
            return true;
        }
        /* Enter is the Join button: it sends only while the state says Join is enabled
        ** (dimmed otherwise). Keys edit the state's password, and only while the state
        ** says the field takes them: the terminal has no text field to hold one. */
        if (escape) send_input(s, "\"destinationDismissed\"");
        else if (enter && flag(connect, "isJoinEnabled")) send_input(s, "\"joinButtonTapped\"");
        else if ((backspace || character) && flag(connect, "isPasswordEditable")) {
            const char *password = text(connect, "password");
            size_t length = strlen(password);
            char *edited = malloc(length + 5);
            if (!edited) return true;
            memcpy(edited, password, length + 1);
            if (backspace) {
                if (length == 0) { free(edited); return true; }
                /* Remove the last character: its continuation bytes, then its lead byte. */
                while (length > 0 && ((unsigned char)edited[length - 1] & 0xC0) == 0x80) length--;
                if (length > 0) length--;
                edited[length] = '\0';
            } else {
                size_t n = utf8_encode((uint32_t)key, edited + length);
                edited[length + n] = '\0';
            }
            send_password(s, edited);
            free(edited);
        }
        return true;
    }

    if (is_object(detail)) {
        if (flag(detail, "forgetAlertIsPresented")) {
            if (character && (key == 'y' || key == 'Y')) send_input(s, "\"confirmForgetNetworkButtonTapped\"");
            else if (escape || (character && (key == 'n' || key == 'N'))) send_input(s, "\"forgetAlertDismissed\"");
            return true;
        }
        if (character && key == 'f') send_input(s, "\"forgetNetworkButtonTapped\"");
        else if (escape) send_input(s, "\"destinationDismissed\"");
        else if (character && key == 'q') return false;
        return true;
    }

    const json *rows[MAX_ROWS];
    int count = network_rows(state, rows);
    if (character && key == 'q') return false;
    if (character && key == 'w') {
        send_input(s, flag(state, "isOn") ? "{\"wifiToggled\":{\"isOn\":false}}" : "{\"wifiToggled\":{\"isOn\":true}}");
    } else if (function_key && (key == KEY_UP || key == KEY_DOWN) && count > 0) {
        int cursor = s->cursor + (key == KEY_UP ? -1 : 1);
        if (cursor < 0) cursor = 0;
        if (cursor >= count) cursor = count - 1;
        s->cursor = cursor;
        free(s->cursor_id);
        s->cursor_id = strdup(text(rows[cursor], "id"));
    } else if ((enter || (character && key == 'i')) && count > 0 && s->cursor < count) {
        send_with_text(s, enter ? "networkTapped" : "infoButtonTapped", "id", text(rows[s->cursor], "id"));
    }
    return true;
}

/* ---------------------------------------------------------------------------
*/
static int usage(FILE *out) {
    fprintf(out, "usage: wifi_screen [--manual-clock] [--live-scan]\n"
                 "  --manual-clock  time stands still; + moves it one second\n"
                 "  --live-scan     networks come and go while the screen is open\n");
    return out == stderr ? 2 : 0;
}

int main(int argc, char **argv) {
    bool manual_clock = false, live_scan = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--manual-clock") == 0) manual_clock = true;
        else if (strcmp(argv[i], "--live-scan") == 0) live_scan = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return usage(stdout);
        else return usage(stderr);
    }
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C"); /* JSON numbers use '.' whatever the locale */
    /* Names such as "Café Guest", the bars and the lock need UTF-8; any other locale
    ** (LANG=C) gets the ASCII drawing rather than bytes it would show as garbage. */
    text_is_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    glyphs = text_is_utf8 ? &utf8_glyphs : &ascii_glyphs;

    if (fk_abi_version() != FK_ABI_VERSION) {
        fprintf(stderr, "wifi_screen: the library speaks ABI %u, this program %d\n", fk_abi_version(), FK_ABI_VERSION);
        return 1;
    }
    const char *options = manual_clock ? (live_scan ? "{\"clock\":\"manual\"}"
                                                    : "{\"clock\":\"manual\",\"settings\":{\"liveScan\":false}}")
                                       : (live_scan ? "{}" : "{\"settings\":{\"liveScan\":false}}");
    screen s = {0};
    s.manual_clock = manual_clock;
    fk_status status = fk_create_with_options("wifi", FK_NUL_TERMINATED, options, FK_NUL_TERMINATED, &s.wifi);
    if (status != FK_OK) {
        fprintf(stderr, "wifi_screen: %s: %s\n", fk_status_name(status), fk_last_error_message());
        return 1;
    }

    int fds[2];
    if (pipe(fds) != 0) {
        perror("wifi_screen: pipe");
        fk_destroy(s.wifi);
        return 1;
    }
    wake_read = fds[0];
    wake_write = fds[1];
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    /* Before initscr, so that curses leaves these signals to us: quit cleanly. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);

    uint64_t subscription = 0;
    status = fk_subscribe(s.wifi, on_change, NULL, &subscription);
    if (status != FK_OK) {
        fprintf(stderr, "wifi_screen: %s: %s\n", fk_status_name(status), fk_last_error_message());
        fk_destroy(s.wifi);
        close(wake_read);
        close(wake_write);
        return 1;
    }
    send_input(&s, "\"screenAppeared\""); /* starts the live scan, when the feature has it on */

    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);

    bool running = true;
    while (running && !quit_signal) {
        drain_wakes();
        read_state(&s);
        place_cursor(&s);
        draw(&s);

        struct pollfd watched[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_read, POLLIN, 0}};
        if (poll(watched, 2, -1) < 0 && errno != EINTR) break;
        if (watched[0].revents & (POLLHUP | POLLERR | POLLNVAL)) break; /* the terminal went away */
        /* Every key waiting (curses may hold some already read; a resize is a key too). */
        wint_t key;
        int kind;
        while (running && (kind = get_wch(&key)) != ERR) running = handle_key(&s, kind, key);
    }

    send_input(&s, "\"screenDisappeared\"");
    fk_unsubscribe(s.wifi, subscription);
    fk_destroy(s.wifi);
    endwin();
    json_free(s.state);
    free(s.cursor_id);
    close(wake_read);
    close(wake_write);
    return 0;
}
