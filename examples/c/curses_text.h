/*
 * curses_text.h: UTF-8 text and boxes in a wide-character curses window, for the C
 * examples that draw a screen. Static, for one `cc` line: `#include "curses_text.h"`.
 *
 * Text always comes in as UTF-8 (the library's JSON). Where the terminal's locale is
 * not UTF-8 (LANG=C), the program sets text_is_utf8 to false and everything is drawn in
 * ASCII instead: accented Latin letters as their base letter, quotes as ' and ", other
 * characters as '?', boxes in + - |; never bytes the terminal would show as garbage.
 */
#ifndef FUSIONKIT_EXAMPLES_CURSES_TEXT_H
#define FUSIONKIT_EXAMPLES_CURSES_TEXT_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* Whether the locale's character set is UTF-8: the program sets it once, from
** nl_langinfo(CODESET) after setlocale. */
static bool text_is_utf8 = true;

/* Decodes one UTF-8 character at p (not at its end); returns its length in bytes.
** A malformed sequence is one U+FFFD per byte that cannot start or continue one. */
static int utf8_next(const unsigned char *p, uint32_t *out) {
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
    *out = cp;
    return length;
}

/* The ASCII character shown for a code point when the locale is not UTF-8. */
static uint32_t ascii_fallback(uint32_t cp) {
    /* U+00C0 to U+00FF, each as its base letter (Latin-1's accented letters). */
    static const char latin1[] = "AAAAAAACEEEEIIIIDNOOOOOxOUUUUYTsaaaaaaaceeeeiiiidnooooo/ouuuuyty";
    _Static_assert(sizeof latin1 == 0x40 + 1, "one letter per code point U+00C0..U+00FF");
    if (cp < 0x80) return cp;
    if (cp >= 0xC0 && cp <= 0xFF) return (uint32_t)latin1[cp - 0xC0];
    switch (cp) {
    case 0x2018: case 0x2019: return '\'';
    case 0x201C: case 0x201D: return '"';
    case 0x2010: case 0x2011: case 0x2013: case 0x2014: return '-';
    case 0x00A0: return ' ';
    default: return '?';
    }
}

/* UTF-8 to wide characters (UCS-4 on glibc), control characters shown as '?'; in
** ASCII only where the locale is not UTF-8. */
static size_t to_wide(const char *utf8, wchar_t *out, size_t max) {
    const unsigned char *p = (const unsigned char *)utf8;
    size_t n = 0;
    while (*p && n + 1 < max) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        if (cp < 0x20 || cp == 0x7F) cp = '?';
        if (!text_is_utf8) cp = ascii_fallback(cp);
        out[n++] = (wchar_t)cp;
    }
    out[n] = 0;
    return n;
}

/* The columns one character takes as drawn. */
static int char_columns(uint32_t cp) {
    if (!text_is_utf8) return 1; /* drawn as one ASCII character */
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

/* The columns a UTF-8 text takes as drawn. */
static int text_columns(const char *utf8) {
    const unsigned char *p = (const unsigned char *)utf8;
    int columns = 0;
    while (*p) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        columns += char_columns(cp);
    }
    return columns;
}

/* Copies a UTF-8 text into out (out_size bytes), cut to at most `columns` columns:
** when it does not fit, as much as fits before `ellipsis` (itself UTF-8), so that a
** name too long for its place is seen to go on. */
static void cut_text(const char *utf8, int columns, const char *ellipsis, char *out, size_t out_size) {
    if (out_size == 0) return;
    out[0] = '\0';
    if (columns <= 0) return;
    const unsigned char *p = (const unsigned char *)utf8;
    size_t length = strlen(utf8);
    if (text_columns(utf8) <= columns) {
        if (length >= out_size) length = out_size - 1;
        memcpy(out, utf8, length);
        out[length] = '\0';
        return;
    }
    int room = columns - text_columns(ellipsis), used = 0;
    size_t kept = 0;
    while (p[kept] && room > 0) {
        uint32_t cp;
        int bytes = utf8_next(p + kept, &cp);
        int w = char_columns(cp);
        if (used + w > room || kept + (size_t)bytes + strlen(ellipsis) >= out_size) break;
        used += w;
        kept += (size_t)bytes;
    }
    memcpy(out, utf8, kept);
    snprintf(out + kept, out_size - kept, "%s", room > 0 ? ellipsis : "");
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
** capture shows as text, unlike the VT100 line-drawing set); in + - | without UTF-8. */
static void draw_box(int top, int left, int height, int width) {
    const char *horizontal = text_is_utf8 ? "─" : "-", *vertical = text_is_utf8 ? "│" : "|";
    for (int y = top; y < top + height; y++) {
        if (y < 0 || y >= LINES) continue;
        bool first = y == top, last = y == top + height - 1;
        const char *fill = first || last ? horizontal : " ";
        if (!text_is_utf8) put(y, left, first || last ? "+" : vertical, 1);
        else put(y, left, first ? "┌" : last ? "└" : vertical, 1);
        for (int x = left + 1; x < left + width - 1; x++) put(y, x, fill, 1);
        if (!text_is_utf8) put(y, left + width - 1, first || last ? "+" : vertical, 1);
        else put(y, left + width - 1, first ? "┐" : last ? "┘" : vertical, 1);
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
