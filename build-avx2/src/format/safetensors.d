build-avx2/src/format/safetensors.o: src/format/safetensors.c \
 src/format/safetensors.h src/format/json.h src/util/atomic_file.h \
 src/util/err.h
src/format/safetensors.h:
src/format/json.h:
src/util/atomic_file.h:
src/util/err.h:
