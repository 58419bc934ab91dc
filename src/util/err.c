// err.c — error message buffer and checked allocation.
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_msg[20480];  // room for a full ErrList

int err_set(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return code;
}

int err_wrap(int code, const char *fmt, ...) {
    char prefix[512], old[sizeof g_msg - sizeof prefix];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t n = strnlen(g_msg, sizeof old - 1);
    memcpy(old, g_msg, n);
    old[n] = 0;
    snprintf(g_msg, sizeof g_msg, "%s%s", prefix, old);
    return code;
}

const char *err_msg(void) { return g_msg; }

void errlist_add(ErrList *l, const char *fmt, ...) {
    if (l->n == ERR_LIST_MAX) {
        l->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->msg[l->n++], sizeof l->msg[0], fmt, ap);
    va_end(ap);
}

int errlist_report(const ErrList *l, int code) {
    if (l->n == 0) return 0;
    if (l->n == 1 && !l->dropped) return err_set(code, "%s", l->msg[0]);
    size_t len = (size_t)snprintf(g_msg, sizeof g_msg, "%d errors:", l->n + l->dropped);
    for (int i = 0; i < l->n && len < sizeof g_msg; i++)
        len += (size_t)snprintf(g_msg + len, sizeof g_msg - len, "\n  %s", l->msg[i]);
    if (l->dropped && len < sizeof g_msg)
        snprintf(g_msg + len, sizeof g_msg - len, "\n  (and %d more, not listed)", l->dropped);
    return code;
}
void err_clear(void) { g_msg[0] = 0; }

static void oom(size_t bytes) {
    fprintf(stderr, "lmtrain: out of memory allocating %zu bytes\n", bytes);
    exit(ERR_RUNTIME);
}

void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) oom(bytes);
    return p;
}

void *xcalloc(size_t count, size_t size) {
    size_t total;
    if (!size_mul(count, size, &total)) oom(SIZE_MAX);
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) oom(total);
    return p;
}

void *xrealloc(void *p, size_t bytes) {
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) oom(bytes);
    return q;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

int size_mul(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}
