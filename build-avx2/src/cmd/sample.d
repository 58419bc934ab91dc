build-avx2/src/cmd/sample.o: src/cmd/sample.c src/model/generate.h \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h \
 src/config/config.h src/model/sampler.h src/util/rng.h \
 src/cmd/commands.h src/cmd/args.h src/cmd/run_load.h \
 src/train/checkpoint.h src/train/optimizer.h src/train/data.h \
 src/util/err.h src/util/format_bytes.h
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
src/cmd/commands.h:
src/cmd/args.h:
src/cmd/run_load.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/err.h:
src/util/format_bytes.h:
