// test_svg.c — the SVG line chart: well-formed XML, escaped text, no NaN or
// infinity anywhere, every coordinate inside the canvas, points placed
// proportionally (linear and log), 1-2-5 and decade tick labels, degenerate
// inputs, and the atomic file write.
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "format/svg.h"
#include "util/err.h"
#include "util/rng.h"

// ---------------------------------------------------------------------------
// helpers

// the chart as a string (caller frees)
static char *render(const SvgChart *c, const SvgSeries *s, size_t n) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) exit(1);
    svg_line_chart_fprint(f, c, s, n);
    fclose(f);
    return buf;
}

static int has(const char *doc, const char *needle) { return strstr(doc, needle) != NULL; }

static size_t count(const char *doc, const char *needle) {
    size_t k = 0, len = strlen(needle);
    for (const char *p = doc; (p = strstr(p, needle)); p += len) k++;
    return k;
}

static int has_nocase(const char *doc, const char *needle) {
    size_t len = strlen(needle);
    for (const char *p = doc; *p; p++) {
        size_t i = 0;
        while (i < len && p[i] && tolower((unsigned char)p[i]) == needle[i]) i++;
        if (i == len) return 1;
    }
    return 0;
}

// A small XML well-formedness check: tags nest and close, attribute values
// are quoted, character data has no raw '<' and every '&' starts an entity,
// and there is exactly one root element, <svg>. Returns NULL or what is wrong.
static const char *xml_problem(const char *doc) {
    static char why[160];
    const char *stack[64];
    size_t depth = 0, roots = 0;
    const char *p = doc;
    while (*p) {
        if (*p == '&') {
            const char *q = p + 1;
            if (*q == '#') {
                q++;
                if (!isdigit((unsigned char)*q)) return "bad numeric entity";
                while (isdigit((unsigned char)*q)) q++;
            } else if (!strncmp(q, "amp", 3) || !strncmp(q, "quot", 4) || !strncmp(q, "lt", 2) || !strncmp(q, "gt", 2)) {
                while (isalpha((unsigned char)*q)) q++;
            } else {
                return "raw '&' in text";
            }
            if (*q != ';') return "unterminated entity";
            p = q + 1;
            continue;
        }
        if (*p == '>') return "raw '>' in text";
        if (*p != '<') {
            p++;
            continue;
        }
        // a tag
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t nlen = 0;
        while (isalnum((unsigned char)name[nlen]) || name[nlen] == '-' || name[nlen] == ':') nlen++;
        if (nlen == 0) return "tag without a name";
        const char *q = name + nlen;
        // attributes: name="value" pairs, values without '<' or raw '&'
        while (*q && *q != '>' && !(q[0] == '/' && q[1] == '>')) {
            if (isspace((unsigned char)*q)) {
                q++;
                continue;
            }
            if (closing) return "attributes on a closing tag";
            while (isalnum((unsigned char)*q) || *q == '-' || *q == ':') q++;
            if (q[0] != '=' || q[1] != '"') return "unquoted attribute";
            q += 2;
            while (*q && *q != '"') {
                if (*q == '<') return "'<' in an attribute value";
                q++;
            }
            if (!*q) return "unterminated attribute value";
            q++;
        }
        if (!*q) return "unterminated tag";
        if (*q == '/') {  // self-closing
            if (depth == 0) roots++;
            p = q + 2;
            continue;
        }
        if (closing) {
            if (depth == 0) return "closing tag without an open one";
            depth--;
            if (strncmp(stack[depth], name, nlen) != 0 || isalnum((unsigned char)stack[depth][nlen])) {
                snprintf(why, sizeof why, "</%.*s> closes <%.10s", (int)nlen, name, stack[depth]);
                return why;
            }
        } else {
            if (depth == 0) {
                roots++;
                if (strncmp(name, "svg", 3) != 0 || nlen != 3) return "root element is not <svg>";
            }
            if (depth == 64) return "nesting too deep";
            stack[depth++] = name;
        }
        p = q + 1;
    }
    if (depth != 0) return "unclosed element";
    if (roots != 1) return "not exactly one root element";
    return NULL;
}

// Every number in the geometry (x, y, cx, ..., and the path data) must be a
// finite value inside the 800x500 canvas. Returns how many were checked, or
// -1 (with a message) if one is not.
static long coords_in_canvas(const char *doc) {
    static const char *const ATTRS[] = {" x=\"", " y=\"", " x1=\"", " y1=\"", " x2=\"", " y2=\"",
                                        " cx=\"", " cy=\""};
    long checked = 0;
    for (size_t a = 0; a < sizeof ATTRS / sizeof ATTRS[0]; a++) {
        int is_x = ATTRS[a][1] == 'x' || ATTRS[a][2] == 'x';
        size_t len = strlen(ATTRS[a]);
        for (const char *p = doc; (p = strstr(p, ATTRS[a])); p += len) {
            char *end;
            double v = strtod(p + len, &end);
            if (end == p + len || *end != '"' || !isfinite(v) || v < 0 || v > (is_x ? 800 : 500)) {
                fprintf(stderr, "  coordinate out of canvas: %.40s\n", p);
                return -1;
            }
            checked++;
        }
    }
    for (const char *p = doc; (p = strstr(p, " d=\"")); p += 4) {
        const char *q = p + 4;
        int axis = 0;
        while (*q && *q != '"') {
            if (*q == 'M' || *q == 'L' || isspace((unsigned char)*q)) {
                q++;
                continue;
            }
            char *end;
            double v = strtod(q, &end);
            if (end == q || !isfinite(v) || v < 0 || v > (axis ? 500 : 800)) {
                fprintf(stderr, "  path coordinate out of canvas: %.40s\n", q);
                return -1;
            }
            axis ^= 1;
            checked++;
            q = end;
        }
    }
    return checked;
}

// The checks every chart must pass whatever its data.
static void check_sane(const char *doc) {
    CHECK(strncmp(doc, "<svg", 4) == 0);
    size_t len = strlen(doc);
    CHECK(len > 7 && strcmp(doc + len - 7, "</svg>\n") == 0);
    const char *why = xml_problem(doc);
    if (why) fprintf(stderr, "  not well-formed: %s\n", why);
    CHECK(why == NULL);
    CHECK(!has_nocase(doc, "nan"));
    CHECK(!has_nocase(doc, "inf"));
    CHECK(coords_in_canvas(doc) > 0);
}

// Points of the i-th <path> (0-based) as (x, y) pixel pairs; returns the count.
static size_t path_points(const char *doc, size_t which, double *xy, size_t cap) {
    const char *p = doc;
    for (size_t i = 0; i <= which; i++) {
        p = strstr(p, " d=\"");
        if (!p) return 0;
        p += 4;
    }
    size_t n = 0;
    while (*p && *p != '"' && n < cap) {
        if (*p == 'M' || *p == 'L' || isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        char *end;
        xy[n++] = strtod(p, &end);
        p = end;
    }
    return n / 2;
}

// The y-axis tick labels (the only right-aligned text) as (value, pixel y) pairs.
static size_t y_tick_labels(const char *doc, double *val, double *py, size_t cap) {
    static const char KEY[] = " text-anchor=\"end\">";
    size_t n = 0;
    for (const char *p = doc; (p = strstr(p, KEY)) && n < cap; p += strlen(KEY)) {
        // back up to this element's y attribute
        const char *t = p;
        while (t > doc && strncmp(t, "<text", 5) != 0) t--;
        const char *ya = strstr(t, " y=\"");
        if (!ya || ya > p) continue;
        py[n] = strtod(ya + 4, NULL);
        val[n] = strtod(p + strlen(KEY), NULL);
        n++;
    }
    return n;
}

// ---------------------------------------------------------------------------

static void test_loss_chart(void) {
    enum { N = 101 };
    double x[N], train[N], val[N];
    for (int i = 0; i < N; i++) {
        x[i] = 20.0 * i;
        train[i] = 1.4 + 3.0 * exp(-i / 20.0);
        val[i] = i % 10 == 0 ? 1.5 + 3.0 * exp(-i / 20.0) : NAN;  // only at eval steps
    }
    SvgSeries s[2] = {{"softmax train", x, train, N, 0, 1}, {"softmax val", x, val, N, 1, 1}};
    SvgChart c = {"Loss: train & val <softmax>", "step", "loss (nats/char)", 0, 0};
    char *doc = render(&c, s, 2);
    check_sane(doc);
    CHECK(has(doc, "Loss: train &amp; val &lt;softmax&gt;"));
    CHECK(has(doc, ">step</text>"));
    CHECK(has(doc, ">loss (nats/char)</text>"));
    CHECK(has(doc, ">softmax train</text>"));
    CHECK(has(doc, ">softmax val</text>"));
    // one path per series; val joins its 11 points across the NaN gaps
    CHECK(count(doc, "<path") == 2);
    double xy[2 * N];
    CHECK(path_points(doc, 0, xy, 2 * N) == N);
    CHECK(path_points(doc, 1, xy, 2 * N) == 11);
    // 11 val points get dots; 101 train points do not
    CHECK(count(doc, "<circle") == 11);
    // val is dashed (path and legend), train is not; both share colour 1
    CHECK(count(doc, "stroke-dasharray") == 2);
    CHECK(count(doc, "stroke=\"#0072B2\"") == 4);
    // 1-2-5 ticks: x 0..2000 by 500, y 1.5..4.5 by 0.5
    CHECK(has(doc, ">0</text>") && has(doc, ">500</text>") && has(doc, ">2000</text>"));
    CHECK(has(doc, ">1.5</text>") && has(doc, ">3.0</text>") && has(doc, ">4.0</text>"));
    CHECK(!has(doc, ">2500</text>"));  // limits hug the data, no empty tick beyond it
    free(doc);
}

// Pixel positions are an affine map of the data: equal data steps give equal
// pixel steps, larger x goes right, larger y goes up. On a log axis the same
// holds for equal ratios.
static void test_points_placed_proportionally(void) {
    double x[5] = {0, 1, 2, 3, 4}, y[5] = {10, 20, 30, 40, 50};
    SvgSeries s = {"lin", x, y, 5, 0, 0};
    SvgChart c = {"t", "x", "y", 0, 0};
    char *doc = render(&c, &s, 1);
    check_sane(doc);
    double xy[10];
    CHECK(path_points(doc, 0, xy, 10) == 5);
    for (int i = 1; i < 5; i++) {
        CHECK(xy[2 * i] > xy[2 * i - 2]);          // right
        CHECK(xy[2 * i + 1] < xy[2 * i - 1]);      // up
        // two decimals are printed: spacing equal to 0.02 px
        CHECK_NEAR(xy[2 * i] - xy[2 * i - 2], xy[2] - xy[0], 0.02);
        CHECK_NEAR(xy[2 * i + 1] - xy[2 * i - 1], xy[3] - xy[1], 0.02);
    }
    free(doc);

    double lx[4] = {1, 10, 100, 1000}, ly[4] = {1e-3, 1e-2, 1e-1, 1};
    SvgSeries sl = {"log", lx, ly, 4, 0, 0};
    SvgChart cl = {"t", "n", "s", 1, 1};
    doc = render(&cl, &sl, 1);
    check_sane(doc);
    CHECK(path_points(doc, 0, xy, 10) == 4);
    for (int i = 1; i < 4; i++) {
        CHECK(xy[2 * i] > xy[2 * i - 2] + 10);
        CHECK_NEAR(xy[2 * i] - xy[2 * i - 2], xy[2] - xy[0], 0.02);
        CHECK_NEAR(xy[2 * i + 1] - xy[2 * i - 1], xy[3] - xy[1], 0.02);
    }
    // decade tick labels
    CHECK(has(doc, ">1</text>") && has(doc, ">10</text>") && has(doc, ">100</text>") && has(doc, ">1000</text>"));
    CHECK(has(doc, ">0.001</text>") && has(doc, ">0.1</text>"));
    free(doc);
}

// For random data ranges: the y labels step by 1, 2 or 5 times a power of
// ten, there are 3..10 of them, they cover the data, and -- read back as an
// axis -- they put the data points exactly where the path draws them. On log
// axes the same placement check runs through log10.
static void test_tick_labels_match_data(void) {
    Rng r;
    rng_seed(&r, 5);
    int bad_step = 0, bad_count = 0, bad_cover = 0, bad_place = 0;
    for (int trial = 0; trial < 400; trial++) {
        int logy = trial % 4 == 3;
        double lo, hi;
        if (logy) {  // within the plain-number label range 1e-3 .. 1e4
            double span = 0.05 + 3 * rng_f32(&r), e0 = -3 + (7 - span) * rng_f32(&r);
            lo = pow(10, e0);
            hi = pow(10, e0 + span);
        } else {
            double mag = pow(10, -6 + 12 * rng_f32(&r));
            lo = (rng_f32(&r) - 0.5) * 4 * mag;
            hi = lo + mag * (0.01 + rng_f32(&r));
        }
        double x[2] = {0, 1}, y[2] = {lo, hi};
        SvgSeries s = {"s", x, y, 2, 0, 0};
        SvgChart c = {"t", "x", "y", 0, logy};
        char *doc = render(&c, &s, 1);
        double val[64], py[64], xy[4];
        size_t n = y_tick_labels(doc, val, py, 64);
        if (path_points(doc, 0, xy, 4) != 2 || n < 2) {
            bad_count++;
            free(doc);
            continue;
        }
        if (!logy) {
            double step = val[1] - val[0];
            double mant = step / pow(10, floor(log10(step) + 1e-9));
            if (!(fabs(mant - 1) < 1e-6 || fabs(mant - 2) < 1e-6 || fabs(mant - 5) < 1e-6)) bad_step++;
            for (size_t i = 1; i < n; i++)
                if (fabs(val[i] - val[i - 1] - step) > 1e-6 * step) bad_step++;
            if (n < 3 || n > 10) bad_count++;
            if (val[0] > lo + step || val[n - 1] < hi - step) bad_cover++;
            if (val[0] < lo - 0.05 * (hi - lo) - step * 1e-6 || val[n - 1] > hi + 0.05 * (hi - lo) + step * 1e-6)
                bad_cover++;
        }
        // pixel of a value, interpolated (or extrapolated) from the first and last label
        double t0 = logy ? log10(val[0]) : val[0], t1 = logy ? log10(val[n - 1]) : val[n - 1];
        double p0 = py[0] - 4, p1 = py[n - 1] - 4;  // labels sit 4 px below their tick
        for (int k = 0; k < 2; k++) {
            double tv = logy ? log10(y[k]) : y[k];
            double want = p0 + (tv - t0) * (p1 - p0) / (t1 - t0);
            // both printed with two decimals; labels of 5+ significant digits are rounded
            if (fabs(xy[2 * k + 1] - want) > 0.05) {
                if (bad_place++ < 3)
                    fprintf(stderr, "  y=%g drawn at %.2f, labels say %.2f (log %d)\n", y[k], xy[2 * k + 1], want, logy);
            }
        }
        free(doc);
    }
    CHECK(bad_step == 0);
    CHECK(bad_count == 0);
    CHECK(bad_cover == 0);
    CHECK(bad_place == 0);

    // a span that calls for a step of 2
    double x[2] = {0, 1}, y[2] = {0, 10};
    SvgSeries s = {"s", x, y, 2, 0, 0};
    SvgChart c = {"t", "x", "y", 0, 0};
    char *doc = render(&c, &s, 1);
    CHECK(has(doc, ">2</text>") && has(doc, ">4</text>") && has(doc, ">8</text>"));
    free(doc);
}

static void test_log_axis_labels(void) {
    // many decades: powers of ten with superscripts, every other decade labelled
    double x[2] = {0, 1}, y[2] = {1e-8, 1e6};
    SvgSeries s = {"g", x, y, 2, 0, 0};
    SvgChart c = {"t", "x", "y", 0, 1};
    char *doc = render(&c, &s, 1);
    check_sane(doc);
    CHECK(has(doc, "10<tspan dy=\"-6\" font-size=\"9\">&#8722;8</tspan>"));
    CHECK(has(doc, "10<tspan dy=\"-6\" font-size=\"9\">6</tspan>"));
    CHECK(has(doc, "10<tspan dy=\"-6\" font-size=\"9\">0</tspan>"));
    free(doc);

    // about one decade (typical loss): 1-2-5 or 1..9 mantissas, plain numbers
    double y2[2] = {1.3, 4.7};
    s.y = y2;
    doc = render(&c, &s, 1);
    check_sane(doc);
    CHECK(has(doc, ">2</text>") && has(doc, ">3</text>") && has(doc, ">4</text>"));
    CHECK(!has(doc, "tspan"));
    free(doc);

    // a narrow range on a log axis still gets at least three labels (linear steps)
    double y3[2] = {1.10, 1.30};
    s.y = y3;
    doc = render(&c, &s, 1);
    check_sane(doc);
    CHECK(has(doc, ">1.10</text>") && has(doc, ">1.20</text>") && has(doc, ">1.30</text>"));
    free(doc);
}

static void test_degenerate_inputs(void) {
    double one_x = 5, one_y = 3;
    double ex[4] = {1, 2, 3, 4}, flat[4] = {2, 2, 2, 2}, zero[4] = {0, 0, 0, 0};
    double nan4[4] = {NAN, NAN, NAN, NAN};
    double wild[6] = {1, INFINITY, -INFINITY, NAN, 1e308, 2};
    double wx[6] = {0, 1, 2, 3, 4, 5};
    double neg[4] = {-1, 0, 3, 30};
    const SvgChart lin = {"t", "x", "y", 0, 0}, logy = {"t", "x", "y", 0, 1}, loglog = {"t", "x", "y", 1, 1};
    struct {
        const char *what;
        SvgSeries s;
        const SvgChart *c;
        size_t circles;  // markers expected
    } cases[] = {
        {"one point", {"p", &one_x, &one_y, 1, 0, 0}, &lin, 1},
        {"one point, log", {"p", &one_x, &one_y, 1, 0, 0}, &loglog, 1},
        {"all equal", {"f", ex, flat, 4, 1, 0}, &lin, 4},
        {"all zero", {"z", ex, zero, 4, 0, 0}, &lin, 4},
        {"all equal, log", {"f", ex, flat, 4, 0, 0}, &logy, 4},
        {"empty series", {"e", NULL, NULL, 0, 0, 0}, &lin, 0},
        {"all NaN", {"n", ex, nan4, 4, 0, 0}, &lin, 0},
        {"all zero, log", {"z", ex, zero, 4, 0, 0}, &logy, 0},
        {"inf, nan, huge", {"w", wx, wild, 6, 0, 0}, &lin, 2},
        {"non-positive on log", {"l", ex, neg, 4, 0, 0}, &logy, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *doc = render(cases[i].c, &cases[i].s, 1);
        int before = t_case_failed;
        t_case_failed = 0;
        check_sane(doc);
        CHECK(count(doc, "<circle") == cases[i].circles);
        if (cases[i].circles == 0) CHECK(has(doc, ">no data</text>"));
        if (t_case_failed) fprintf(stderr, "  ... in case '%s'\n", cases[i].what);
        t_case_failed |= before;
        free(doc);
    }

    // no series at all, NULL texts
    SvgChart bare = {NULL, NULL, NULL, 1, 1};
    char *doc = render(&bare, NULL, 0);
    check_sane(doc);
    CHECK(has(doc, ">no data</text>"));
    free(doc);

    // unlabelled series get a generated legend entry; many series are summarised
    double x[2] = {0, 1}, y[2] = {0, 1};
    SvgSeries many[40];
    for (int i = 0; i < 40; i++) many[i] = (SvgSeries){NULL, x, y, 2, i % 2, 0};
    doc = render(&lin, many, 40);
    check_sane(doc);
    CHECK(has(doc, ">series 1</text>"));
    CHECK(has(doc, "more</text>"));
    free(doc);
}

static void test_text_escaping(void) {
    double x[2] = {0, 1}, y[2] = {1, 2};
    SvgSeries s[3] = {
        {"a&b <c> \"d\" 'e'", x, y, 2, 0, 0},
        {"x\xff\xfe \xe2\x82|\x01 \xce\xbb=0.9", x, y, 2, 0, 0},  // bad bytes, truncated sequence, control char; λ stays
        {"a label far too long to fit in the legend box", x, y, 2, 0, 0},
    };
    SvgChart c = {"R&D <1>", "x & y", "<y>", 0, 0};
    char *doc = render(&c, s, 3);
    check_sane(doc);
    CHECK(has(doc, ">a&amp;b &lt;c&gt; &quot;d&quot; &#39;e&#39;</text>"));
    CHECK(has(doc, ">R&amp;D &lt;1&gt;</text>"));
    CHECK(has(doc, ">x &amp; y</text>"));
    CHECK(has(doc, ">&lt;y&gt;</text>"));
    CHECK(has(doc, ">x&#65533;&#65533; &#65533;&#65533;|  \xce\xbb=0.9</text>"));
    CHECK(has(doc, ">a label far too long &#8230;</text>"));
    free(doc);
}

static void test_distinct_colours(void) {
    double x[2] = {0, 1}, y[2] = {1, 2};
    SvgSeries s[8];
    for (int i = 0; i < 8; i++) s[i] = (SvgSeries){"s", x, y, 2, 0, 0};
    SvgChart c = {"t", "x", "y", 0, 0};
    char *doc = render(&c, s, 8);
    check_sane(doc);
    // each series' path has its own stroke colour
    char seen[8][8];
    const char *p = doc;
    for (int i = 0; i < 8; i++) {
        p = strstr(p, "<path fill=\"none\" stroke=\"");
        CHECK(p != NULL);
        if (!p) break;
        p += strlen("<path fill=\"none\" stroke=\"");
        memcpy(seen[i], p, 7);
        seen[i][7] = 0;
        for (int j = 0; j < i; j++) CHECK(strcmp(seen[i], seen[j]) != 0);
    }
    free(doc);
}

static void test_file_written_atomically(void) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test_svg.XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/curves.svg", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    double x[3] = {0, 1, 2}, y[3] = {3, 2, 1};
    SvgSeries s = {"train", x, y, 3, 0, 0};
    SvgChart c = {"curves", "step", "loss", 0, 0};
    CHECK(svg_line_chart(path, &c, &s, 1) == 0);
    char *want = render(&c, &s, 1);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
        char got[1 << 15];
        size_t n = fread(got, 1, sizeof got - 1, f);
        got[n] = 0;
        fclose(f);
        CHECK(strcmp(got, want) == 0);
    }
    struct stat st;
    CHECK(stat(tmp, &st) != 0);
    free(want);
    unlink(path);
    rmdir(dir);

    CHECK(svg_line_chart("/nonexistent_dir_for_lmtrain_test/c.svg", &c, &s, 1) == ERR_RUNTIME);
    CHECK(has(err_msg(), "/nonexistent_dir_for_lmtrain_test/c.svg"));
}

int main(void) {
    TEST(test_loss_chart);
    TEST(test_points_placed_proportionally);
    TEST(test_tick_labels_match_data);
    TEST(test_log_axis_labels);
    TEST(test_degenerate_inputs);
    TEST(test_text_escaping);
    TEST(test_distinct_colours);
    TEST(test_file_written_atomically);
    return test_summary();
}
