build-portable/src/attention/delta_chunk.o: src/attention/delta_chunk.c \
 src/attention/delta_chunk.h src/attention/options.h \
 src/attention/feature_map.h
src/attention/delta_chunk.h:
src/attention/options.h:
src/attention/feature_map.h:
