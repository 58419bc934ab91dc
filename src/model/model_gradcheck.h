// model_gradcheck.h — finite differences through the whole model: every
// parameter tensor (tied embedding included) of a tiny model of each kind.
#pragma once
#include <stdio.h>

// Returns the number of failing cases; prints one line per case to out.
int model_gradcheck_all(FILE *out);
