build-avx2/src/train/train.o: src/train/train.c src/train/train.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/attention/decay.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/format/svg.h \
 src/train/checkpoint.h src/train/optimizer.h src/train/data.h \
 src/util/rng.h src/train/evaluate.h src/train/interrupt.h \
 src/train/metrics.h src/train/progress.h src/train/run_folder.h \
 src/util/dir_lock.h src/train/step.h src/train/summary.h \
 src/util/atomic_file.h src/util/dirs.h src/util/err.h src/util/pause.h \
 src/util/pool.h
src/train/train.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/attention/decay.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/format/svg.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/rng.h:
src/train/evaluate.h:
src/train/interrupt.h:
src/train/metrics.h:
src/train/progress.h:
src/train/run_folder.h:
src/util/dir_lock.h:
src/train/step.h:
src/train/summary.h:
src/util/atomic_file.h:
src/util/dirs.h:
src/util/err.h:
src/util/pause.h:
src/util/pool.h:
