build-avx2/src/util/stats.o: src/util/stats.c src/util/stats.h
src/util/stats.h:
