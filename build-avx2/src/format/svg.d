build-avx2/src/format/svg.o: src/format/svg.c src/format/svg.h \
 src/util/atomic_file.h src/util/err.h
src/format/svg.h:
src/util/atomic_file.h:
src/util/err.h:
