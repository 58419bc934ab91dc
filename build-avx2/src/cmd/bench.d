build-avx2/src/cmd/bench.o: src/cmd/bench.c src/attention/attention.h \
 src/attention/options.h src/bench/bench.h src/config/config.h \
 src/kernels/bf16.h src/model/model.h src/autograd/ops.h \
 src/autograd/tape.h src/train/optimizer.h src/cmd/commands.h \
 src/cmd/args.h src/util/dirs.h src/util/err.h
src/attention/attention.h:
src/attention/options.h:
src/bench/bench.h:
src/config/config.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/optimizer.h:
src/cmd/commands.h:
src/cmd/args.h:
src/util/dirs.h:
src/util/err.h:
