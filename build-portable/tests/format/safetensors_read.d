build-portable/tests/format/safetensors_read.o: \
 tests/format/safetensors_read.c tests/format/safetensors_read.h \
 src/format/safetensors.h tests/format/json_read.h src/util/err.h
tests/format/safetensors_read.h:
src/format/safetensors.h:
tests/format/json_read.h:
src/util/err.h:
