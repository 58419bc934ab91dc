build-avx2/src/util/file_check.o: src/util/file_check.c \
 src/util/file_check.h src/util/err.h
src/util/file_check.h:
src/util/err.h:
