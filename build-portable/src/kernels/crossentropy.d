build-portable/src/kernels/crossentropy.o: src/kernels/crossentropy.c \
 src/kernels/nn.h src/kernels/bf16.h src/kernels/vexp.h src/util/pool.h
src/kernels/nn.h:
src/kernels/bf16.h:
src/kernels/vexp.h:
src/util/pool.h:
