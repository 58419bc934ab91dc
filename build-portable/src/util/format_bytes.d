build-portable/src/util/format_bytes.o: src/util/format_bytes.c \
 src/util/format_bytes.h
src/util/format_bytes.h:
