build-portable/src/kernels/matmul.o: src/kernels/matmul.c \
 src/kernels/bf16.h src/kernels/gemm.h src/kernels/nn.h
src/kernels/bf16.h:
src/kernels/gemm.h:
src/kernels/nn.h:
