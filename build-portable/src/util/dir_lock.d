build-portable/src/util/dir_lock.o: src/util/dir_lock.c \
 src/util/dir_lock.h src/util/err.h src/util/file_check.h
src/util/dir_lock.h:
src/util/err.h:
src/util/file_check.h:
