build-avx2/src/lab/experiment.o: src/lab/experiment.c \
 src/lab/experiment.h src/lab/memory.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/kernels/gemm.h src/util/err.h src/util/rng.h
src/lab/experiment.h:
src/lab/memory.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/kernels/gemm.h:
src/util/err.h:
src/util/rng.h:
