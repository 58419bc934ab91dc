build-portable/src/bench/bench_peak.o: src/bench/bench_peak.c \
 src/bench/bench.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/optimizer.h \
 src/bench/membw.h src/bench/peak.h src/util/atomic_file.h src/util/err.h \
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
src/bench/membw.h:
src/bench/peak.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/pool.h:
