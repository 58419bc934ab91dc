build-avx2/src/experiment/report_md.o: src/experiment/report_md.c \
 src/experiment/report.h src/experiment/results.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/experiment/plan.h src/util/stats.h src/train/summary.h \
 src/model/model.h src/autograd/ops.h src/autograd/tape.h \
 src/train/checkpoint.h src/train/optimizer.h src/util/format_bytes.h
src/experiment/report.h:
src/experiment/results.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/experiment/plan.h:
src/util/stats.h:
src/train/summary.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/util/format_bytes.h:
