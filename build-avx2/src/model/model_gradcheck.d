build-avx2/src/model/model_gradcheck.o: src/model/model_gradcheck.c \
 src/model/model_gradcheck.h src/autograd/gradcheck.h src/autograd/tape.h \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/kernels/bf16.h src/config/config.h src/util/err.h
src/model/model_gradcheck.h:
src/autograd/gradcheck.h:
src/autograd/tape.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/kernels/bf16.h:
src/config/config.h:
src/util/err.h:
