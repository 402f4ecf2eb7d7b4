/*
 * wifi_screen_draw.h: how examples/c/wifi_screen.c draws the Wi-Fi screen with curses,
 * from the state alone: the list, the connect and detail sheets, the alerts, the key
 * hints, and "terminal too small". Static, for one `cc` line.
 */
#ifndef FUSIONKIT_EXAMPLES_WIFI_SCREEN_DRAW_H
#define FUSIONKIT_EXAMPLES_WIFI_SCREEN_DRAW_H

#include <curses.h>
#include <wchar.h>

#include "curses_text.h"
#include "wifi_screen_state.h"

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

#endif
