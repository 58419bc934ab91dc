build-avx2/src/kernels/layernorm.o: src/kernels/layernorm.c \
 src/kernels/nn.h src/kernels/bf16.h src/util/pool.h
src/kernels/nn.h:
src/kernels/bf16.h:
src/util/pool.h:
