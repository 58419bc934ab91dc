build-portable/src/kernels/embed.o: src/kernels/embed.c src/kernels/nn.h \
 src/kernels/bf16.h src/util/pool.h
src/kernels/nn.h:
src/kernels/bf16.h:
src/util/pool.h:
