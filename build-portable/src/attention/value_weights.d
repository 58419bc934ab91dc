build-portable/src/attention/value_weights.o: \
 src/attention/value_weights.c src/attention/value_weights.h \
 src/attention/attention.h src/attention/options.h \
 src/attention/delta_chunk.h src/attention/feature_map.h src/util/err.h
src/attention/value_weights.h:
src/attention/attention.h:
src/attention/options.h:
src/attention/delta_chunk.h:
src/attention/feature_map.h:
src/util/err.h:
