build-portable/src/train/text_data.o: src/train/text_data.c \
 src/train/data_internal.h src/train/data.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/util/rng.h src/util/err.h src/util/file_check.h
src/train/data_internal.h:
src/train/data.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/rng.h:
src/util/err.h:
src/util/file_check.h:
