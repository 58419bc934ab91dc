// err.h — one place that records and prints errors.
//
// Convention used everywhere: a function that can fail returns 0 on success or
// an exit status (ERR_RUNTIME = 1, ERR_USAGE = 2) after recording a message
// with err_set(). main() prints the message once and exits with that status.
#pragma once
#include <stddef.h>

enum { ERR_OK = 0, ERR_RUNTIME = 1, ERR_USAGE = 2, ERR_INTERRUPTED = 130 };

// Records "printf-style message" and returns `code` so callers can write
// `return err_set(ERR_USAGE, "%s:%d: ...", file, line);`.
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Prefixes the current message with more context ("loading x: " + old message).
int err_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *err_msg(void);
void err_clear(void);

// Several errors reported in one message (a config with three mistakes shows
// all three). At most ERR_LIST_MAX are kept; the rest are counted.
#define ERR_LIST_MAX 20
typedef struct {
    int n, dropped;
    char msg[ERR_LIST_MAX][768];
} ErrList;
void errlist_add(ErrList *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// 0 if the list is empty; else err_set(code, ...) with the one message, or
// "N errors:" and one indented line per error, and returns code.
int errlist_report(const ErrList *l, int code);

// Allocation that cannot silently fail: on failure prints the request size and
// exits 1. Training never allocates inside a step, so this is only hit at setup.
void *xmalloc(size_t bytes);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t bytes);
char *xstrdup(const char *s);
// Multiplies sizes, returning 0 (and *out untouched) if the product overflows.
int size_mul(size_t a, size_t b, size_t *out);
