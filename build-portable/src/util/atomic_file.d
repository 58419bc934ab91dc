build-portable/src/util/atomic_file.o: src/util/atomic_file.c \
 src/util/atomic_file.h src/util/err.h src/util/file_check.h \
 src/util/pause.h
src/util/atomic_file.h:
src/util/err.h:
src/util/file_check.h:
src/util/pause.h:
