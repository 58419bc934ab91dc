build-avx2/src/kernels/gemm_bf16.o: src/kernels/gemm_bf16.c \
 src/kernels/gemm_kernels.h src/kernels/bf16.h src/kernels/avx512_tile.h
src/kernels/gemm_kernels.h:
src/kernels/bf16.h:
src/kernels/avx512_tile.h:
