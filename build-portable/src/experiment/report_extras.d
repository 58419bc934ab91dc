build-portable/src/experiment/report_extras.o: \
 src/experiment/report_extras.c src/experiment/report_extras.h \
 src/experiment/results.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/experiment/plan.h \
 src/util/stats.h src/train/metrics.h src/util/err.h \
 src/util/file_check.h
src/experiment/report_extras.h:
src/experiment/results.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/experiment/plan.h:
src/util/stats.h:
src/train/metrics.h:
src/util/err.h:
src/util/file_check.h:
