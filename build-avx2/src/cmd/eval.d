build-avx2/src/cmd/eval.o: src/cmd/eval.c src/experiment/eval_summary.h \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h \
 src/config/config.h src/cmd/args.h src/cmd/commands.h src/cmd/run_load.h \
 src/train/checkpoint.h src/train/optimizer.h src/train/data.h \
 src/util/rng.h src/format/svg.h src/train/evaluate.h \
 src/train/interrupt.h src/util/atomic_file.h src/util/dirs.h \
 src/util/err.h src/util/pause.h src/util/pool.h
src/experiment/eval_summary.h:
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
src/format/svg.h:
src/train/evaluate.h:
src/train/interrupt.h:
src/util/atomic_file.h:
src/util/dirs.h:
src/util/err.h:
src/util/pause.h:
src/util/pool.h:
