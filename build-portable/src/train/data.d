build-portable/src/train/data.o: src/train/data.c src/train/data.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/util/rng.h src/train/data_internal.h \
 src/util/err.h
src/train/data.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/rng.h:
src/train/data_internal.h:
src/util/err.h:
