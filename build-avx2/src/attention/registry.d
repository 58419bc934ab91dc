build-avx2/src/attention/registry.o: src/attention/registry.c \
 src/attention/attention.h src/attention/options.h
src/attention/attention.h:
src/attention/options.h:
