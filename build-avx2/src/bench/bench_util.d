build-avx2/src/bench/bench_util.o: src/bench/bench_util.c \
 src/bench/bench.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/optimizer.h \
 src/util/err.h src/util/pool.h src/util/rng.h
src/bench/bench.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/optimizer.h:
src/util/err.h:
src/util/pool.h:
src/util/rng.h:
