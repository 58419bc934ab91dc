build-avx2/src/autograd/tape.o: src/autograd/tape.c src/autograd/tape.h \
 src/util/err.h src/util/pool.h
src/autograd/tape.h:
src/util/err.h:
src/util/pool.h:
