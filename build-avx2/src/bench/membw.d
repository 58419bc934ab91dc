build-avx2/src/bench/membw.o: src/bench/membw.c src/bench/membw.h
src/bench/membw.h:
