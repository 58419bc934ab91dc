build-portable/src/lab/memory.o: src/lab/memory.c src/lab/memory.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/attention/feature_map.h src/util/err.h
src/lab/memory.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/attention/feature_map.h:
src/util/err.h:
