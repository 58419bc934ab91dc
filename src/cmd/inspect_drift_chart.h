// inspect_drift_chart.h — the picture of `lmtrain inspect`'s float16 drift
// study: the relative error of the float16 state against tokens generated,
// S per layer solid and z per layer dashed in the same colour. A series whose
// last value is not finite stopped where the float16 state overflowed: it
// ends in a cross and its legend says "overflows ×".
#pragma once
#include <stddef.h>

// x (k): token counts; s, z (k, L): row i, column l = layer l's error after x[i]
// tokens (z ignored without has_z). 0, or ERR_RUNTIME naming path.
int drift_chart_write(const char *path, const char *title, const double *x, const double *s, const double *z,
                      size_t k, size_t L, int has_z);
