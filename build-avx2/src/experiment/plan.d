build-avx2/src/experiment/plan.o: src/experiment/plan.c \
 src/experiment/plan.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/util/atomic_file.h \
 src/util/err.h src/util/file_check.h
src/experiment/plan.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/file_check.h:
