build-avx2/src/train/evaluate.o: src/train/evaluate.c \
 src/train/evaluate.h src/config/config.h src/attention/attention.h \
 src/attention/options.h src/kernels/bf16.h src/model/model.h \
 src/autograd/ops.h src/autograd/tape.h src/train/data.h src/util/rng.h \
 src/train/interrupt.h src/util/pause.h
src/train/evaluate.h:
src/config/config.h:
src/attention/attention.h:
src/attention/options.h:
src/kernels/bf16.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/train/data.h:
src/util/rng.h:
src/train/interrupt.h:
src/util/pause.h:
