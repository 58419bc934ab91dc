build-avx2/src/kernels/residual.o: src/kernels/residual.c \
 src/kernels/nn.h src/kernels/bf16.h src/util/pool.h
src/kernels/nn.h:
src/kernels/bf16.h:
src/util/pool.h:
