build-portable/src/attention/delta.o: src/attention/delta.c \
 src/attention/attention.h src/attention/options.h src/attention/decay.h \
 src/attention/delta_chunk.h src/attention/delta_wy.h \
 src/attention/fastweight_work.h src/attention/value_weights.h \
 src/util/pool.h
src/attention/attention.h:
src/attention/options.h:
src/attention/decay.h:
src/attention/delta_chunk.h:
src/attention/delta_wy.h:
src/attention/fastweight_work.h:
src/attention/value_weights.h:
src/util/pool.h:
