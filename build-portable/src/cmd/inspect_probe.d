build-portable/src/cmd/inspect_probe.o: src/cmd/inspect_probe.c \
 src/cmd/inspect_probe.h src/model/model.h src/attention/attention.h \
 src/attention/options.h src/autograd/ops.h src/autograd/tape.h \
 src/kernels/bf16.h src/config/config.h src/model/generate.h \
 src/model/sampler.h src/util/rng.h src/format/fp16.h src/util/err.h
src/cmd/inspect_probe.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/model/generate.h:
src/model/sampler.h:
src/util/rng.h:
src/format/fp16.h:
src/util/err.h:
