build-avx2/src/cmd/run_load.o: src/cmd/run_load.c src/cmd/run_load.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/model/model.h src/autograd/ops.h \
 src/autograd/tape.h src/train/checkpoint.h src/train/optimizer.h \
 src/train/data.h src/util/rng.h src/util/err.h
src/cmd/run_load.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/rng.h:
src/util/err.h:
