build-avx2/src/train/metrics.o: src/train/metrics.c src/train/metrics.h \
 src/util/atomic_file.h src/util/file_check.h src/util/err.h
src/train/metrics.h:
src/util/atomic_file.h:
src/util/file_check.h:
src/util/err.h:
