build-avx2/src/train/summary.o: src/train/summary.c src/train/summary.h \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h \
 src/config/config.h src/train/checkpoint.h src/train/optimizer.h \
 src/format/svg.h src/train/metrics.h src/util/atomic_file.h \
 src/util/err.h src/util/format_bytes.h src/util/pool.h
src/train/summary.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/format/svg.h:
src/train/metrics.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/format_bytes.h:
src/util/pool.h:
