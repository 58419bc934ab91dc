build-portable/src/train/optimizer.o: src/train/optimizer.c \
 src/train/optimizer.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/nn.h src/util/err.h
src/train/optimizer.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/nn.h:
src/util/err.h:
