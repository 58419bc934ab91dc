// memory.h — one fast-weight memory, outside any model: the memory lab's object.
//
// A dh x dh matrix S (and for the sum rules a normaliser z of dh) takes writes
// (k, v) and answers reads q, by one of four write rules. k and q arrive raw and
// go through the feature map φ first, exactly as in the attention kinds:
//
//   sum        S += φ(k) vᵀ,  z += φ(k)                          (kind linear)
//   decay      S = λS + φ(k) vᵀ,  z = λz + φ(k)                  (kind linear_decay)
//              read both: y = Sᵀφ(q) / (φ(q)ᵀz + eps), or y = Sᵀφ(q) when
//              normalize is off (identity φ: φ(q)ᵀz can be zero or negative)
//   delta-sum  k̂ = φ(k) / (Σφ(k) + eps)                           (kind delta)
//   delta-l2   k̂ = φ(k) / (‖φ(k)‖₂ + eps)                         (delta, L2 keys)
//              S = S + β k̂ (v − Sᵀk̂)ᵀ: write only the correction;
//              read y = Sᵀq̂ with q̂ normalised like the keys.
//
// Float32 like the models' states. The delta rules here have no decay (λ = 1:
// the plain delta rule); only the decay rule uses λ.
#pragma once
#include <stddef.h>

#include "config/config.h"

typedef enum { LAB_SUM, LAB_DECAY, LAB_DELTA_SUM, LAB_DELTA_L2, LAB_N_RULES } LabRule;

// "sum", "decay", "delta-sum", "delta-l2"
const char *lab_rule_name(LabRule r);

typedef struct {
    LabRule rule;
    size_t dh;
    FeatureMap fmap;
    float lambda;  // decay rule: S and z are multiplied by λ before each write
    float beta;    // delta rules: write strength in (0, 1]
    float eps;     // the kinds' epsilon (normaliser and key normalisation)
    int normalize; // sum rules: divide the read-out by φ(q)ᵀz + eps
} LabMemSpec;

typedef struct {
    LabMemSpec sp;
    float *S;      // (dh, dh), row i = key component i
    float *z;      // (dh) normaliser of the sum rules
    float *phi;    // (dh) scratch: the normalised feature of the key or query
} LabMemory;

void labmem_init(LabMemory *m, const LabMemSpec *sp);
void labmem_free(LabMemory *m);
void labmem_reset(LabMemory *m);  // S = 0, z = 0
// k (dh) raw key, v (dh) value
void labmem_write(LabMemory *m, const float *k, const float *v);
// y (dh) = what the memory returns for the raw query q (dh)
void labmem_read(LabMemory *m, const float *q, float *y);
