build-avx2/src/util/format_bytes.o: src/util/format_bytes.c \
 src/util/format_bytes.h
src/util/format_bytes.h:
