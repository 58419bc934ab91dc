build-avx2/src/train/run_folder.o: src/train/run_folder.c \
 src/train/run_folder.h src/util/dir_lock.h src/train/train.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/util/atomic_file.h src/util/dirs.h src/util/err.h \
 src/util/file_check.h
src/train/run_folder.h:
src/util/dir_lock.h:
src/train/train.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/atomic_file.h:
src/util/dirs.h:
src/util/err.h:
src/util/file_check.h:
