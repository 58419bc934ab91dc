build-portable/tests/format/json_read.o: tests/format/json_read.c \
 tests/format/json_read.h src/util/err.h
tests/format/json_read.h:
src/util/err.h:
