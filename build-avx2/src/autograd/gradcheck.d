build-avx2/src/autograd/gradcheck.o: src/autograd/gradcheck.c \
 src/autograd/gradcheck.h src/autograd/tape.h src/attention/decay.h \
 src/attention/attention.h src/attention/options.h src/autograd/ops.h \
 src/kernels/bf16.h src/util/err.h src/util/rng.h
src/autograd/gradcheck.h:
src/autograd/tape.h:
src/attention/decay.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/kernels/bf16.h:
src/util/err.h:
src/util/rng.h:
