build-avx2/src/cmd/ablate.o: src/cmd/ablate.c src/cmd/args.h \
 src/cmd/cli.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/cmd/commands.h \
 src/experiment/plan.h src/experiment/report.h src/experiment/results.h \
 src/util/stats.h src/train/checkpoint.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/optimizer.h \
 src/train/run_folder.h src/util/dir_lock.h src/train/train.h \
 src/util/dirs.h src/util/err.h
src/cmd/args.h:
src/cmd/cli.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/cmd/commands.h:
src/experiment/plan.h:
src/experiment/report.h:
src/experiment/results.h:
src/util/stats.h:
src/train/checkpoint.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/optimizer.h:
src/train/run_folder.h:
src/util/dir_lock.h:
src/train/train.h:
src/util/dirs.h:
src/util/err.h:
