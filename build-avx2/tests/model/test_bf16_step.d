build-avx2/tests/model/test_bf16_step: tests/model/test_bf16_step.c \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h \
 src/config/config.h tests/test.h src/util/pool.h
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
tests/test.h:
src/util/pool.h:
