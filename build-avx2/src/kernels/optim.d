build-avx2/src/kernels/optim.o: src/kernels/optim.c src/kernels/nn.h \
 src/kernels/bf16.h src/util/pool.h
src/kernels/nn.h:
src/kernels/bf16.h:
src/util/pool.h:
