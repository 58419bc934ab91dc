build-portable/src/train/progress.o: src/train/progress.c \
 src/train/progress.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h
src/train/progress.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
