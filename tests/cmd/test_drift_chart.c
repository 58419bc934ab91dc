// test_drift_chart.c — inspect's float16 drift chart: a series whose float16
// state overflowed (its values stop being finite) ends in a cross at the last
// token count it reached, and its legend says so; a series that never
// overflowed has no cross. Checked by value in the SVG text.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "cmd/inspect_drift_chart.h"
#include "format/svg_read.h"

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_overflow_marked_where_the_line_stops(void) {
    enum { K = 6, L = 2 };
    double x[K] = {1, 10, 100, 1000, 10000, 100000};
    // (K, L): layer 0's S levels off; layer 1's S and z overflow after 1000 tokens (inf, then NaN)
    double s[K * L] = {1e-4, 1e-4, 2e-4, 1e-3, 3e-4, 1e-2, 3e-4, 0.3, 3e-4, INFINITY, 3e-4, NAN};
    double z[K * L] = {1e-4, 1e-4, 2e-4, 1e-3, 3e-4, 1e-2, 3e-4, 0.5, 3e-4, NAN, 3e-4, NAN};
    char path[] = "/tmp/lmtrain-drift-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    CHECK(drift_chart_write(path, "run (linear): float16 state vs float32", x, s, z, K, L, 1) == 0);
    const char *doc = read_file(path);
    CHECK(doc != NULL);
    if (doc) {
        CHECK(svg_count(doc, "class=\"end-mark\"") == 2);                      // S and z of layer 1
        CHECK(svg_count(doc, "class=\"end-mark\" data-x=\"1000\"") == 2);      // at the last finite point
        CHECK(strstr(doc, ">S layer 1 overflows &#215;</text>") != NULL);  // and the legend says it
        CHECK(strstr(doc, ">z layer 1 overflows &#215;</text>") != NULL);
        CHECK(strstr(doc, ">S layer 0</text>") != NULL);                  // the bounded one: no mark
    }
    unlink(path);
}

int main(void) {
    TEST(test_overflow_marked_where_the_line_stops);
    return test_summary();
}
