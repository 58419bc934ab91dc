build-avx2/src/model/model.o: src/model/model.c src/model/model.h \
 src/attention/attention.h src/attention/options.h src/autograd/ops.h \
 src/autograd/tape.h src/kernels/bf16.h src/config/config.h \
 src/attention/decay.h src/util/err.h src/util/rng.h
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/attention/decay.h:
src/util/err.h:
src/util/rng.h:
