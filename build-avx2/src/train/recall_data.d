build-avx2/src/train/recall_data.o: src/train/recall_data.c \
 src/train/data_internal.h src/train/data.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/util/rng.h src/util/err.h
src/train/data_internal.h:
src/train/data.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/rng.h:
src/util/err.h:
