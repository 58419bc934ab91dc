build-portable/tests/kernels/test_bf16: tests/kernels/test_bf16.c \
 src/kernels/bf16.h tests/test.h
src/kernels/bf16.h:
tests/test.h:
