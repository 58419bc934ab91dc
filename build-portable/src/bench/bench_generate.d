build-portable/src/bench/bench_generate.o: src/bench/bench_generate.c \
 src/model/generate.h src/model/model.h src/attention/attention.h \
 src/attention/options.h src/autograd/ops.h src/autograd/tape.h \
 src/kernels/bf16.h src/config/config.h src/model/sampler.h \
 src/util/rng.h src/bench/bench.h src/train/optimizer.h \
 src/util/atomic_file.h src/util/err.h src/util/format_bytes.h
src/model/generate.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/model/sampler.h:
src/util/rng.h:
src/bench/bench.h:
src/train/optimizer.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/format_bytes.h:
