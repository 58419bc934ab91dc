build-avx2/src/format/json.o: src/format/json.c src/format/json.h
src/format/json.h:
