// value_weights.h — the attention matrix each kind implies (AttnKind.value_weights).
//
// Softmax attends explicitly: W = softmax(QKᵀ/√dh), causal. A fast-weight kind
// never forms W, but its read-out is still linear in the values, so W exists:
// λ^(i−j) below stands for Λ(j, i) = λ_{j+1}···λ_i, the decay from token j to
// token i (λ^(i−j) for one λ per head; a product of per-token λ_t with
// decay = data), and λ^(i+1) for Λ(−1, i), the initial state's.
//   linear, linear_decay   W[i, j] = λ^(i−j) φ(q_i)·φ(k_j) / den_i,
//                          den_i = φ(q_i)ᵀz_i + eps (1 without normalize)
//   delta                  y_i = Σ_j λ^(i−j) (q̂_i·k̂_j) u_j over the written
//                          corrections u_j = β_j(v_j − λS_{j−1}ᵀk̂_j), and u
//                          is itself linear in v (a lower-triangular solve),
//                          so W = A·M with A[i, j] = λ^(i−j) q̂_i·k̂_j and
//                          u = M v: weights that can be negative (a correction
//                          subtracts what an earlier write put there).
// Signatures as AttnKind.value_weights.
#pragma once
#include <stddef.h>

#include "attention/attention.h"

void softmax_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                           const float *aux, const double *lam, double *W, double *y0);
void linear_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                          const float *aux, const double *lam, double *W, double *y0);
void delta_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                         const float *aux, const double *lam, double *W, double *y0);
