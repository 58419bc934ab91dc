build-portable/src/attention/delta_wy.o: src/attention/delta_wy.c \
 src/attention/delta_wy.h src/attention/delta_chunk.h \
 src/attention/options.h src/attention/feature_map.h src/kernels/gemm.h
src/attention/delta_wy.h:
src/attention/delta_chunk.h:
src/attention/options.h:
src/attention/feature_map.h:
src/kernels/gemm.h:
