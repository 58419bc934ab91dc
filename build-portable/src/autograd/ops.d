build-portable/src/autograd/ops.o: src/autograd/ops.c src/autograd/ops.h \
 src/attention/attention.h src/attention/options.h src/autograd/tape.h \
 src/kernels/bf16.h src/kernels/nn.h src/util/err.h
src/autograd/ops.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/kernels/nn.h:
src/util/err.h:
