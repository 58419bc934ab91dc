build-portable/src/cmd/report.o: src/cmd/report.c src/cmd/args.h \
 src/cmd/commands.h src/experiment/report.h src/experiment/results.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/experiment/plan.h src/util/stats.h src/util/err.h
src/cmd/args.h:
src/cmd/commands.h:
src/experiment/report.h:
src/experiment/results.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/experiment/plan.h:
src/util/stats.h:
src/util/err.h:
