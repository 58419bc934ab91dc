build-portable/src/lab/run_keys.o: src/lab/run_keys.c src/lab/run_keys.h \
 src/model/model.h src/attention/attention.h src/attention/options.h \
 src/autograd/ops.h src/autograd/tape.h src/kernels/bf16.h \
 src/config/config.h src/model/generate.h
src/lab/run_keys.h:
src/model/model.h:
src/attention/attention.h:
src/attention/options.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/model/generate.h:
