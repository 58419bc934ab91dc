build-avx2/src/kernels/bf16.o: src/kernels/bf16.c src/kernels/bf16.h
src/kernels/bf16.h:
