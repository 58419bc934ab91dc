build-avx2/src/experiment/results.o: src/experiment/results.c \
 src/experiment/results.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/experiment/plan.h \
 src/util/stats.h src/experiment/eval_summary.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/checkpoint.h \
 src/train/optimizer.h src/train/metrics.h src/train/summary.h \
 src/util/err.h src/util/file_check.h
src/experiment/results.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/experiment/plan.h:
src/util/stats.h:
src/experiment/eval_summary.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/metrics.h:
src/train/summary.h:
src/util/err.h:
src/util/file_check.h:
