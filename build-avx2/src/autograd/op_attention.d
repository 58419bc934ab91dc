build-avx2/src/autograd/op_attention.o: src/autograd/op_attention.c \
 src/attention/decay.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h src/util/err.h \
 src/util/pool.h
src/attention/decay.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/util/err.h:
src/util/pool.h:
