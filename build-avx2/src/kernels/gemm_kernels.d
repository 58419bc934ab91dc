build-avx2/src/kernels/gemm_kernels.o: src/kernels/gemm_kernels.c \
 src/kernels/gemm_kernels.h
src/kernels/gemm_kernels.h:
