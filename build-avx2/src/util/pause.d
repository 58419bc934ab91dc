build-avx2/src/util/pause.o: src/util/pause.c src/util/pause.h
src/util/pause.h:
