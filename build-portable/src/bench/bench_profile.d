build-portable/src/bench/bench_profile.o: src/bench/bench_profile.c \
 src/bench/bench.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/optimizer.h \
 src/util/atomic_file.h src/util/err.h src/util/pool.h
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
src/util/pool.h:
