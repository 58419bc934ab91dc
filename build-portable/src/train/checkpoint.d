build-portable/src/train/checkpoint.o: src/train/checkpoint.c \
 src/train/checkpoint.h src/model/model.h src/attention/attention.h \
 src/attention/options.h src/autograd/ops.h src/autograd/tape.h \
 src/kernels/bf16.h src/config/config.h src/train/optimizer.h \
 src/util/binfile.h src/util/err.h
src/train/checkpoint.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/train/optimizer.h:
src/util/binfile.h:
src/util/err.h:
