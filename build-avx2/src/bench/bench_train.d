build-avx2/src/bench/bench_train.o: src/bench/bench_train.c \
 src/bench/bench.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/optimizer.h \
 src/util/atomic_file.h src/util/err.h src/util/format_bytes.h \
 src/util/pool.h
src/bench/bench.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/optimizer.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/format_bytes.h:
src/util/pool.h:
