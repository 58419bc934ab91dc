build-portable/src/attention/softmax.o: src/attention/softmax.c \
 src/attention/attention.h src/attention/options.h \
 src/attention/value_weights.h src/kernels/gemm.h src/kernels/vexp.h \
 src/util/pool.h
src/attention/attention.h:
src/attention/options.h:
src/attention/value_weights.h:
src/kernels/gemm.h:
src/kernels/vexp.h:
src/util/pool.h:
