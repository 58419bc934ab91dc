build-portable/src/util/pool.o: src/util/pool.c src/util/pool.h \
 src/util/err.h
src/util/pool.h:
src/util/err.h:
