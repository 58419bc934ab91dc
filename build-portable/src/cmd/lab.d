build-portable/src/cmd/lab.o: src/cmd/lab.c src/attention/decay.h \
 src/attention/attention.h src/attention/options.h src/lab/experiment.h \
 src/lab/memory.h src/config/config.h src/kernels/bf16.h \
 src/lab/run_keys.h src/model/model.h src/autograd/ops.h \
 src/autograd/tape.h src/cmd/commands.h src/cmd/args.h src/cmd/run_load.h \
 src/train/checkpoint.h src/train/optimizer.h src/train/data.h \
 src/util/rng.h src/format/svg.h src/util/atomic_file.h src/util/dirs.h \
 src/util/err.h
src/attention/decay.h:
src/attention/attention.h:
src/attention/options.h:
src/lab/experiment.h:
src/lab/memory.h:
src/config/config.h:
src/kernels/bf16.h:
src/lab/run_keys.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/cmd/commands.h:
src/cmd/args.h:
src/cmd/run_load.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/rng.h:
src/format/svg.h:
src/util/atomic_file.h:
src/util/dirs.h:
src/util/err.h:
