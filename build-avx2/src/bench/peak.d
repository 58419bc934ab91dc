build-avx2/src/bench/peak.o: src/bench/peak.c src/bench/peak.h \
 src/util/pool.h
src/bench/peak.h:
src/util/pool.h:
