build-avx2/src/model/generate.o: src/model/generate.c \
 src/model/generate.h src/model/model.h src/attention/attention.h \
 src/attention/options.h src/autograd/ops.h src/autograd/tape.h \
 src/kernels/bf16.h src/config/config.h src/attention/decay.h \
 src/kernels/nn.h src/util/err.h
src/model/generate.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/attention/decay.h:
src/kernels/nn.h:
src/util/err.h:
