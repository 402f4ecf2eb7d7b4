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
 * Build (from the repository root, after `swift build`; the .h files beside it are included):
 *   cc -std=c11 -pthread -Iinclude examples/c/wifi_screen.c -L.build/debug \
 *      -lFusionExamples -lncursesw -Wl,-rpath,"$PWD/.build/debug" -o wifi_screen && ./wifi_screen
 * in a UTF-8 locale (LANG=C.UTF-8), for names such as "Café Guest".
 */
#define _XOPEN_SOURCE 700
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
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

/* The signal as three bars, lit as many as the state's signalBars. */
static void signal_bars(long bars, char out[16]) {
    static const char *lit[3] = {"▂", "▄", "▆"};
    out[0] = '\0';
    for (long i = 0; i < 3; i++) strcat(out, i < bars ? lit[i] : "·");
}

static void draw_row(int y, const json *network, bool selected, bool under_cursor) {
    if (y >= LINES - 3) return;
    char bars[16];
    signal_bars(integer(network, "signalBars"), bars);
    if (under_cursor) {
        attron(A_REVERSE);
        mvhline(y, 1, ' ', COLS > 62 ? 60 : COLS - 2);
    }
    put(y, 1, under_cursor ? ">" : " ", 1);
    put(y, 3, selected ? "✓" : " ", 1);
    put(y, 5, text(network, "name"), 40);
    put(y, 48, bars, 3);
    if (flag(network, "isSecured")) put(y, 53, "🔒", 2);
    if (under_cursor) attroff(A_REVERSE);
}

static const char *sheet_help(const screen *s, const char *help, char out[160]) {
    snprintf(out, 160, "%s%s", help, s->manual_clock ? " · + clock +1s" : "");
    return out;
}

static void draw_connect(const json *connect, int top, int left, int width, int height) {
    const json *network = member(connect, "network");
    char line[300];
    draw_box(top, left, height, width);
    snprintf(line, sizeof line, "Join \"%s\"", text(network, "name"));
    attron(A_BOLD);
    put(top + 1, left + 2, line, width - 4);
    attroff(A_BOLD);
    put(top + 2, left + 2, "Enter the password for this network.", width - 4);

    /* The password masked: one dot per character. */
    const char *password = text(connect, "password");
    buffer masked = {0};
    for (const char *p = password; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) append_text(&masked, "•");
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
    if (flag(connect, "isConnecting")) put(top + 6, left + 13, "Joining…", 0);

    if (flag(connect, "incorrectPasswordAlertIsPresented")) {
        int w = 46, h = 7;
        int alert_top = (LINES - h) / 2 + 1, alert_left = (COLS - w) / 2;
        if (alert_left < 0) alert_left = 0;
        draw_box(alert_top, alert_left, h, w);
        attron(A_BOLD);
        put_centered(alert_top + 1, alert_left + 1, w - 2, "Incorrect Password");
        attroff(A_BOLD);
        snprintf(line, sizeof line, "The password for \"%s\"", text(network, "name"));
        put_centered(alert_top + 2, alert_left + 1, w - 2, line);
        put_centered(alert_top + 3, alert_left + 1, w - 2, "is not correct.");
        attron(A_REVERSE);
        put_centered(alert_top + 5, alert_left + 1, w - 2, "[ OK ]");
        attroff(A_REVERSE);
    }
}

static void draw_detail(const json *detail, int top, int left, int width, int height) {
    const json *network = member(detail, "network");
    char line[300], bars[16];
    draw_box(top, left, height, width);
    snprintf(line, sizeof line, "Network \"%s\"", text(network, "name"));
    attron(A_BOLD);
    put(top + 1, left + 2, line, width - 4);
    attroff(A_BOLD);
    snprintf(line, sizeof line, "Security: %s", flag(network, "isSecured") ? "Secured 🔒" : "Open");
    put(top + 3, left + 2, line, width - 4);
    signal_bars(integer(network, "signalBars"), bars);
    snprintf(line, sizeof line, "Signal:   %s  %ld%%", bars, integer(network, "signalPercent"));
    put(top + 4, left + 2, line, width - 4);
    put(top + 6, left + 2, "[ Forget This Network ]", 0);

    if (flag(detail, "forgetAlertIsPresented")) {
        int w = 50, h = 7;
        int alert_top = (LINES - h) / 2 + 1, alert_left = (COLS - w) / 2;
        if (alert_left < 0) alert_left = 0;
        draw_box(alert_top, alert_left, h, w);
        snprintf(line, sizeof line, "Forget \"%s\"?", text(network, "name"));
        attron(A_BOLD);
        put_centered(alert_top + 1, alert_left + 1, w - 2, line);
        attroff(A_BOLD);
        put_centered(alert_top + 2, alert_left + 1, w - 2, "You will no longer join this network");
        put_centered(alert_top + 3, alert_left + 1, w - 2, "automatically.");
        put_centered(alert_top + 5, alert_left + 1, w - 2, "[ y Forget ]   [ n Cancel ]");
    }
}

static void draw(const screen *s) {
    erase();
    char line[300], help[160];
    attron(A_BOLD);
    put(0, 1, "Wi-Fi", 0);
    attroff(A_BOLD);
    if (!s->state) {
        put(2, 1, "Reading the state…", 0);
        refresh();
        return;
    }
    const json *state = s->state;
    bool on = flag(state, "isOn");
    put(1, 1, on ? "Wi-Fi: On" : "Wi-Fi: Off", 0);
    if (s->manual_clock) {
        snprintf(line, sizeof line, "manual clock: %llus", (unsigned long long)s->clock_seconds);
        put(1, 40, line, 0);
    }

    int y = 3, row = 0;
    const json *selected = member(state, "selectedNetwork");
    if (is_object(selected)) {
        attron(A_BOLD);
        put(y++, 1, "My Network", 0);
        attroff(A_BOLD);
        draw_row(y++, selected, true, row == s->cursor);
        row++;
        y++;
    }
    if (on) {
        attron(A_BOLD);
        put(y++, 1, row > 0 ? "Other Networks" : "Networks", 0);
        attroff(A_BOLD);
        const json *others = member(state, "otherNetworks");
        if (others && others->type == J_ARRAY)
            for (const json *n = others->first; n; n = n->next, row++) draw_row(y++, n, false, row == s->cursor);
    } else {
        put(y, 1, "Wi-Fi is off. Press w to turn it on.", 0);
    }

    const json *destination = member(state, "destination");
    const json *connect = member(destination, "connect");
    const json *detail = member(destination, "detail");
    int width = COLS - 4 < 64 ? COLS - 4 : 64, top = 6, height = LINES - 3 - top;
    int left = (COLS - width) / 2;
    if (is_object(connect) || is_object(detail))
        for (int y_sheet = top; y_sheet < top + height; y_sheet++) { move(y_sheet, 0); clrtoeol(); }
    if (is_object(connect)) {
        if (height >= 9 && width >= 20) draw_connect(connect, top, left, width, height);
        sheet_help(s, flag(connect, "incorrectPasswordAlertIsPresented")
                          ? "Enter/Esc OK"
                          : "type the password · Backspace erase · Enter join · Esc cancel", help);
    } else if (is_object(detail)) {
        if (height >= 9 && width >= 20) draw_detail(detail, top, left, width, height);
        sheet_help(s, flag(detail, "forgetAlertIsPresented") ? "y forget · n/Esc cancel"
                                                              : "f forget · Esc back · q quit", help);
    } else {
        sheet_help(s, "↑↓ move · Enter tap · i info · w Wi-Fi on/off · q quit", help);
    }
    if (s->message[0]) put(LINES - 2, 1, s->message, 0);
    attron(A_DIM);
    put(LINES - 1, 1, help, 0);
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
    bool function_key = kind == KEY_CODE_YES;
    bool enter = function_key ? key == KEY_ENTER : (key == '\n' || key == '\r');
    bool escape = !function_key && key == 27;
    bool backspace = function_key ? key == KEY_BACKSPACE : (key == 127 || key == 8);
    bool character = !function_key && key >= 0x20 && key != 0x7F && key < 0x110000 && !(key >= 0xD800 && key < 0xE000);

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
        if (escape) send_input(s, "\"destinationDismissed\"");
        else if (enter) send_input(s, "\"joinButtonTapped\"");
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
