build-avx2/src/cmd/export.o: src/cmd/export.c src/model/model.h \
 src/attention/attention.h src/attention/options.h src/autograd/ops.h \
 src/autograd/tape.h src/kernels/bf16.h src/config/config.h \
 src/cmd/args.h src/cmd/commands.h src/cmd/run_load.h \
 src/train/checkpoint.h src/train/optimizer.h src/train/data.h \
 src/util/rng.h src/format/safetensors.h src/util/err.h \
 src/util/file_check.h
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/cmd/args.h:
src/cmd/commands.h:
src/cmd/run_load.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/rng.h:
src/format/safetensors.h:
src/util/err.h:
src/util/file_check.h:
