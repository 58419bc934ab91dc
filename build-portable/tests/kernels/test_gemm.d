build-portable/tests/kernels/test_gemm: tests/kernels/test_gemm.c \
 src/kernels/bf16.h src/kernels/gemm.h tests/test.h src/util/pool.h
src/kernels/bf16.h:
src/kernels/gemm.h:
tests/test.h:
src/util/pool.h:
