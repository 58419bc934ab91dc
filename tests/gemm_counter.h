// gemm_counter.h — a test program that includes this replaces gemm, gemm_serial,
// gemm_ref, gemm_bf16 and the two with an epilogue (run on all of C at the end)
// with a plain triple loop that also adds 2*M*N*K to g_gemm_flops. Every
// caller outside kernels/gemm.c reaches them through the dispatch pointers
// (kernels/isa.h), which a constructor here points at the counter after
// kernels/dispatch.c has set them, so every matrix product the program runs
// goes through the counter (single-threaded use: the pool is never started,
// or runs one thread).
#pragma once
#include <stddef.h>

#include "kernels/gemm.h"

static double g_gemm_flops;

static void counting_gemm(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                          size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    g_gemm_flops += 2.0 * (double)M * (double)N * (double)K;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double acc = 0;
            for (size_t k = 0; k < K; k++)
                acc += (double)(transA ? A[k * lda + i] : A[i * lda + k]) *
                       (double)(transB ? B[j * ldb + k] : B[k * ldb + j]);
            float prev = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
            C[i * ldc + j] = (float)(alpha * acc) + prev;
        }
}

static void counted_gemm(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A, size_t lda,
          const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    counting_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
static void counted_gemm_serial(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                 size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    counting_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
static void counted_gemm_ref(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
              size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    counting_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
static void counted_gemm_bf16(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
               size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    counting_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
static void counted_gemm_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A, size_t lda,
              const float *B, size_t ldb, float beta, float *C, size_t ldc, const GemmEpilogue *epi) {
    counting_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    if (epi && M && N) epi->fn(epi, C, ldc, 0, 0, M, N);
}
static void counted_gemm_bf16_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                   size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc,
                   const GemmEpilogue *epi) {
    counted_gemm_epi(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, epi);
}

__attribute__((constructor)) static void gemm_counter_install(void) {
    kd_gemm = counted_gemm;
    kd_gemm_serial = counted_gemm_serial;
    kd_gemm_ref = counted_gemm_ref;
    kd_gemm_bf16 = counted_gemm_bf16;
    kd_gemm_epi = counted_gemm_epi;
    kd_gemm_bf16_epi = counted_gemm_bf16_epi;
}
