build-portable/src/experiment/report_svg.o: src/experiment/report_svg.c \
 src/experiment/report.h src/experiment/results.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/experiment/plan.h src/util/stats.h src/format/svg.h \
 src/util/atomic_file.h src/util/err.h
src/experiment/report.h:
src/experiment/results.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/experiment/plan.h:
src/util/stats.h:
src/format/svg.h:
src/util/atomic_file.h:
src/util/err.h:
