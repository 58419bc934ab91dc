build-portable/src/attention/fastweight_chunk.o: \
 src/attention/fastweight_chunk.c src/attention/fastweight_chunk.h \
 src/attention/options.h src/attention/feature_map.h src/kernels/gemm.h
src/attention/fastweight_chunk.h:
src/attention/options.h:
src/attention/feature_map.h:
src/kernels/gemm.h:
