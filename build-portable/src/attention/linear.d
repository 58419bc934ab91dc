build-portable/src/attention/linear.o: src/attention/linear.c \
 src/attention/attention.h src/attention/options.h src/attention/decay.h \
 src/attention/fastweight_chunk.h src/attention/fastweight_work.h \
 src/attention/feature_map.h src/attention/value_weights.h \
 src/util/pool.h
src/attention/attention.h:
src/attention/options.h:
src/attention/decay.h:
src/attention/fastweight_chunk.h:
src/attention/fastweight_work.h:
src/attention/feature_map.h:
src/attention/value_weights.h:
src/util/pool.h:
