build-avx2/src/cmd/cli.o: src/cmd/cli.c src/cmd/cli.h src/config/config.h \
 src/attention/attention.h src/attention/options.h src/kernels/bf16.h \
 src/util/err.h src/util/file_check.h
src/cmd/cli.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/util/err.h:
src/util/file_check.h:
