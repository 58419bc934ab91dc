build-avx2/src/util/dirs.o: src/util/dirs.c src/util/dirs.h \
 src/util/err.h
src/util/dirs.h:
src/util/err.h:
