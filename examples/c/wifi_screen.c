/*
 * wifi_screen.c: the Wi-Fi settings screen of seed 003 in a terminal, with ncurses.
 *
 * A front end that decides nothing: every line it draws comes from the "wifi"
 * feature's state (read with fk_state and parsed by json_value.h's small reader),
 * and every key only sends an input. The feature says which network is selected,
 * which are the others, how many signal bars each shows, whether Join can be tapped
 * and whether the password can be edited; this file just draws that.
 *
 * This file reads keys and runs the loop; what the screen knows is in wifi_screen_state.h,
 * how it is drawn in wifi_screen_draw.h.
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

#include "wifi_screen_draw.h"

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
