build-avx2/src/bench/bench_flops.o: src/bench/bench_flops.c \
 src/attention/decay.h src/attention/attention.h src/attention/options.h \
 src/bench/bench.h src/config/config.h src/kernels/bf16.h \
 src/model/model.h src/autograd/ops.h src/autograd/tape.h \
 src/train/optimizer.h
src/attention/decay.h:
src/attention/attention.h:
src/attention/options.h:
src/bench/bench.h:
src/config/config.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/optimizer.h:
