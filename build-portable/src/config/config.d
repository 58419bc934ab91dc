build-portable/src/config/config.o: src/config/config.c \
 src/config/config.h src/attention/attention.h src/attention/options.h \
 src/kernels/bf16.h src/config/ini.h src/util/file_check.h src/util/err.h
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/config/ini.h:
src/util/file_check.h:
src/util/err.h:
