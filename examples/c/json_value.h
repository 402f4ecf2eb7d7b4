/*
 * json_value.h: the JSON the C examples read and write, in one header: a minimal reader
 * of the state the library writes (RFC 8259 text, into a tree freed with json_free())
 * and the one kind of input with a text field they send, escaped. Static functions, so
 * an example stays one `cc` line: `#include "json_value.h"` beside it.
 */
#ifndef FUSIONKIT_EXAMPLES_JSON_VALUE_H
#define FUSIONKIT_EXAMPLES_JSON_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
** A minimal JSON reader: enough for the state the library writes (RFC 8259 text),
** into a tree of values freed with json_free().
*/
typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } json_type;

typedef struct json {
    json_type type;
    bool boolean;
    double number;
    char *string;       /* J_STRING: UTF-8, NUL-terminated */
    char *key;          /* set on the members of an object */
    struct json *first; /* J_ARRAY, J_OBJECT: the first element or member */
    struct json *next;  /* the next element or member of the parent */
} json;

typedef struct {
    const char *p;
    const char *end;
    int depth;
} json_reader;

#define JSON_MAX_DEPTH 64

static void json_free(json *value) {
    while (value) {
        json *next = value->next;
        json_free(value->first);
        free(value->string);
        free(value->key);
        free(value);
        value = next;
    }
}

static void skip_space(json_reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

/* Writes a code point as UTF-8; returns the number of bytes (0 for no character). */
static size_t utf8_encode(uint32_t cp, char out[4]) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp >= 0xD800 && cp < 0xE000) return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12); out[1] = (char)(0x80 | (cp >> 6 & 0x3F)); out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp < 0x110000) {
        out[0] = (char)(0xF0 | cp >> 18); out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[2] = (char)(0x80 | (cp >> 6 & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

static bool read_hex4(json_reader *r, uint32_t *out) {
    if (r->end - r->p < 4) return false;
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (uint32_t)(c - 'A' + 10);
        else return false;
    }
    *out = value;
    return true;
}

/* Reads a string at r->p (which is at its opening quote); NULL if malformed. */
static char *read_string(json_reader *r) {
    if (r->p >= r->end || *r->p != '"') return NULL;
    r->p++;
    size_t capacity = 32, length = 0;
    char *text = malloc(capacity);
    if (!text) return NULL;
    while (r->p < r->end && *r->p != '"') {
        char bytes[4];
        size_t count = 0;
        unsigned char c = (unsigned char)*r->p++;
        if (c == '\\') {
            if (r->p >= r->end) goto fail;
            char escape = *r->p++;
            switch (escape) {
            case '"': case '\\': case '/': bytes[count++] = escape; break;
            case 'b': bytes[count++] = '\b'; break;
            case 'f': bytes[count++] = '\f'; break;
            case 'n': bytes[count++] = '\n'; break;
            case 'r': bytes[count++] = '\r'; break;
            case 't': bytes[count++] = '\t'; break;
            case 'u': {
                uint32_t cp;
                if (!read_hex4(r, &cp)) goto fail;
                if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate: its low half follows */
                    uint32_t low;
                    if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') goto fail;
                    r->p += 2;
                    if (!read_hex4(r, &low) || low < 0xDC00 || low >= 0xE000) goto fail;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                count = utf8_encode(cp, bytes);
                if (count == 0) goto fail;
                break;
            }
            default: goto fail;
            }
        } else if (c < 0x20) {
            goto fail;
        } else {
            bytes[count++] = (char)c;
        }
        if (length + count + 1 > capacity) {
            capacity *= 2;
            char *grown = realloc(text, capacity);
            if (!grown) goto fail;
            text = grown;
        }
        memcpy(text + length, bytes, count);
        length += count;
    }
    if (r->p >= r->end) goto fail;
    r->p++; /* the closing quote */
    text[length] = '\0';
    return text;
fail:
    free(text);
    return NULL;
}

static bool read_literal(json_reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return false;
    r->p += n;
    return true;
}

/* A number as RFC 8259 writes it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool read_number(json_reader *r, double *out) {
    char digits[64];
    size_t n = 0;
    const char *start = r->p;
    if (r->p < r->end && *r->p == '-') r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') return false;
    if (*r->p == '0') r->p++;
    else while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9') return false;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9') return false;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    }
    n = (size_t)(r->p - start);
    if (n >= sizeof digits) { *out = 0; return true; } /* longer than any number this screen reads */
    memcpy(digits, start, n);
    digits[n] = '\0';
    *out = strtod(digits, NULL); /* LC_NUMERIC stays "C": the decimal point is '.' */
    return true;
}

static json *read_value(json_reader *r) {
    skip_space(r);
    if (r->p >= r->end) return NULL;
    json *value = calloc(1, sizeof *value);
    if (!value) return NULL;
    char c = *r->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        value->type = c == '{' ? J_OBJECT : J_ARRAY;
        if (++r->depth > JSON_MAX_DEPTH) goto fail;
        r->p++;
        skip_space(r);
        if (r->p < r->end && *r->p == close) {
            r->p++;
            r->depth--;
            return value;
        }
        json **tail = &value->first;
        for (;;) {
            char *key = NULL;
            if (value->type == J_OBJECT) {
                skip_space(r);
                key = read_string(r);
                if (!key) goto fail;
                skip_space(r);
                if (r->p >= r->end || *r->p != ':') { free(key); goto fail; }
                r->p++;
            }
            json *item = read_value(r);
            if (!item) { free(key); goto fail; }
            item->key = key;
            *tail = item;
            tail = &item->next;
            skip_space(r);
            if (r->p < r->end && *r->p == ',') { r->p++; continue; }
            if (r->p < r->end && *r->p == close) { r->p++; break; }
            goto fail;
        }
        r->depth--;
        return value;
    }
    if (c == '"') {
        value->type = J_STRING;
        value->string = read_string(r);
        if (!value->string) goto fail;
        return value;
    }
    if (read_literal(r, "true")) { value->type = J_BOOL; value->boolean = true; return value; }
    if (read_literal(r, "false")) { value->type = J_BOOL; return value; }
    if (read_literal(r, "null")) { value->type = J_NULL; return value; }
    value->type = J_NUMBER;
    if (read_number(r, &value->number)) return value;
fail:
    json_free(value);
    return NULL;
}

/* Parses a whole JSON text; NULL if it is not one. */
static json *json_parse(const char *text, size_t length) {
    json_reader r = {text, text + length, 0};
    json *value = read_value(&r);
    skip_space(&r);
    if (value && r.p != r.end) {
        json_free(value);
        return NULL;
    }
    return value;
}

/* The member `key` of an object; NULL when absent or not an object. */
static const json *member(const json *object, const char *key) {
    if (!object || object->type != J_OBJECT) return NULL;
    for (const json *item = object->first; item; item = item->next)
        if (strcmp(item->key, key) == 0) return item;
    return NULL;
}

static bool is_object(const json *value) { return value && value->type == J_OBJECT; }
static bool flag(const json *object, const char *key) {
    const json *value = member(object, key);
    return value && value->type == J_BOOL && value->boolean;
}
static const char *text(const json *object, const char *key) {
    const json *value = member(object, key);
    return value && value->type == J_STRING ? value->string : "";
}
static long integer(const json *object, const char *key) {
    const json *value = member(object, key);
    return value && value->type == J_NUMBER ? (long)value->number : 0;
}

/* ---------------------------------------------------------------------------
** JSON out: inputs with a string field, escaped.
*/
typedef struct {
    char *data;
    size_t length, capacity;
    bool failed;
} buffer;

static void append(buffer *b, const char *bytes, size_t n) {
    if (b->failed) return;
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 64;
        while (b->length + n + 1 > capacity) capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown) { b->failed = true; return; }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
    b->data[b->length] = '\0';
}

static void append_text(buffer *b, const char *s) { append(b, s, strlen(s)); }

static void append_json_string(buffer *b, const char *s) {
    append_text(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            append(b, escaped, 2);
        } else if (c < 0x20) {
            char escaped[8];
            snprintf(escaped, sizeof escaped, "\\u%04x", c);
            append_text(b, escaped);
        } else {
            append(b, s, 1);
        }
    }
    append_text(b, "\"");
}

/* {"<input>":{"<field>":"<value>"}}, owned by the caller (free()); NULL if out of memory. */
static char *input_with_text(const char *input, const char *field, const char *value) {
    buffer b = {0};
    append_text(&b, "{\"");
    append_text(&b, input);
    append_text(&b, "\":{\"");
    append_text(&b, field);
    append_text(&b, "\":");
    append_json_string(&b, value);
    append_text(&b, "}}");
    if (b.failed) { free(b.data); return NULL; }
    return b.data;
}

#endif
