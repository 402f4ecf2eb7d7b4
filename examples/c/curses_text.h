/*
 * curses_text.h: UTF-8 text and boxes in a wide-character curses window, for the C
 * examples that draw a screen. Static, for one `cc` line: `#include "curses_text.h"`.
 */
#ifndef FUSIONKIT_EXAMPLES_CURSES_TEXT_H
#define FUSIONKIT_EXAMPLES_CURSES_TEXT_H

#include <curses.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

/* UTF-8 to wide characters (UCS-4 on glibc), control characters shown as '?'. */
static size_t to_wide(const char *utf8, wchar_t *out, size_t max) {
    const unsigned char *p = (const unsigned char *)utf8;
    size_t n = 0;
    while (*p && n + 1 < max) {
        uint32_t cp;
        int length;
        if (*p < 0x80) { cp = *p; length = 1; }
        else if ((*p & 0xE0) == 0xC0) { cp = *p & 0x1Fu; length = 2; }
        else if ((*p & 0xF0) == 0xE0) { cp = *p & 0x0Fu; length = 3; }
        else if ((*p & 0xF8) == 0xF0) { cp = *p & 0x07u; length = 4; }
        else { cp = 0xFFFD; length = 1; }
        for (int i = 1; i < length; i++) {
            if ((p[i] & 0xC0) != 0x80) { cp = 0xFFFD; length = i; break; }
            cp = cp << 6 | (p[i] & 0x3Fu);
        }
        if (cp < 0x20 || cp == 0x7F) cp = '?';
        out[n++] = (wchar_t)cp;
        p += length;
    }
    out[n] = 0;
    return n;
}

/* Draws UTF-8 text at (y, x), at most `width` columns (0: to the right edge). */
static void put(int y, int x, const char *utf8, int width) {
    if (y < 0 || y >= LINES || x < 0 || x >= COLS) return;
    if (width <= 0 || x + width > COLS) width = COLS - x;
    wchar_t wide[512];
    size_t n = to_wide(utf8, wide, sizeof wide / sizeof wide[0]);
    int columns = 0;
    size_t fit = 0;
    for (; fit < n; fit++) {
        int w = wcwidth(wide[fit]);
        if (w < 0) w = 1;
        if (columns + w > width) break;
        columns += w;
    }
    if (fit > 0) mvaddnwstr(y, x, wide, (int)fit);
}

/* A box with a blank inside, in Unicode box-drawing characters (what a terminal
** capture shows as text, unlike the VT100 line-drawing set). */
static void draw_box(int top, int left, int height, int width) {
    for (int y = top; y < top + height; y++) {
        if (y < 0 || y >= LINES) continue;
        bool edge = y == top || y == top + height - 1;
        const char *fill = edge ? "─" : " ";
        put(y, left, y == top ? "┌" : y == top + height - 1 ? "└" : "│", 1);
        for (int x = left + 1; x < left + width - 1; x++) put(y, x, fill, 1);
        put(y, left + width - 1, y == top ? "┐" : y == top + height - 1 ? "┘" : "│", 1);
    }
}

/* Text centered between left and left + width. */
static void put_centered(int y, int left, int width, const char *utf8) {
    wchar_t wide[512];
    size_t n = to_wide(utf8, wide, sizeof wide / sizeof wide[0]);
    int columns = wcswidth(wide, n);
    if (columns < 0) columns = (int)n;
    int x = left + (width - columns) / 2;
    put(y, x < left ? left : x, utf8, width);
}

#endif
