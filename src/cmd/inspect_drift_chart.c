// inspect_drift_chart.c — the float16 drift chart (inspect_drift_chart.h).
#include "cmd/inspect_drift_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/svg.h"
#include "util/err.h"

int drift_chart_write(const char *path, const char *title, const double *x, const double *s, const double *z,
                      size_t k, size_t L, int has_z) {
    SvgSeries ser[32];
    char lab[32][32];
    int stops[32] = {0};  // a series that overflowed: a cross where it ends
    size_t ns = 0;
    double *ys = xcalloc(2 * L * k + 1, sizeof(double));
    for (size_t l = 0; l < L && l < 16; l++)  // more layers than colours would not read anyway
        for (int part = 0; part < 1 + (has_z != 0); part++) {
            double *col = ys + ns * k;
            for (size_t i = 0; i < k; i++) col[i] = (part ? z : s)[i * L + l];
            stops[ns] = k > 0 && !isfinite(col[k - 1]);
            snprintf(lab[ns], sizeof lab[ns], "%s layer %zu%s", part ? "z" : "S", l, stops[ns] ? " overflows" : "");
            ser[ns] = (SvgSeries){lab[ns], x, col, k, part, (int)(l % 8) + 1};
            ns++;
        }
    SvgChart c = {title, "tokens generated (× where the float16 state overflowed)",
                  "relative error of the float16 state", 1, 1};
    SvgStyle st = {.end_mark = stops};
    int rc = svg_styled_chart(path, &c, NULL, ser, NULL, ns, &st);
    free(ys);
    return rc;
}
