build-avx2/src/cmd/train.o: src/cmd/train.c src/cmd/args.h src/cmd/cli.h \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/cmd/commands.h src/train/run_folder.h \
 src/util/dir_lock.h src/train/train.h src/util/err.h
src/cmd/args.h:
src/cmd/cli.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/cmd/commands.h:
src/train/run_folder.h:
src/util/dir_lock.h:
src/train/train.h:
src/util/err.h:
