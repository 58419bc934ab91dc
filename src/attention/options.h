// options.h — the choices a configuration makes for an attention kind that
// the kinds read themselves (config.h includes this; attention/ does not
// include config.h, so the layers run one way: attention, then config).
#pragma once

typedef enum { FMAP_ELU1, FMAP_RELU, FMAP_IDENTITY } FeatureMap;
// delta: how φ(q), φ(k) are normalised (with normalize = true): divided by
// their sum (Schlag et al. 2021) or by their L2 norm (DeltaNet, Yang et al. 2024)
typedef enum { KEYNORM_SUM, KEYNORM_L2 } KeyNorm;
