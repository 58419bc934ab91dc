build-portable/src/kernels/gemm.o: src/kernels/gemm.c src/kernels/gemm.h \
 src/kernels/gemm_kernels.h src/kernels/bf16.h src/util/err.h \
 src/util/pool.h
src/kernels/gemm.h:
src/kernels/gemm_kernels.h:
src/kernels/bf16.h:
src/util/err.h:
src/util/pool.h:
