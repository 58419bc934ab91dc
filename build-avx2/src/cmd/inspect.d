build-avx2/src/cmd/inspect.o: src/cmd/inspect.c src/attention/decay.h \
 src/attention/attention.h src/attention/options.h src/cmd/commands.h \
 src/cmd/inspect_probe.h src/model/model.h src/autograd/ops.h \
 src/autograd/tape.h src/kernels/bf16.h src/config/config.h \
 src/cmd/args.h src/cmd/run_load.h src/train/checkpoint.h \
 src/train/optimizer.h src/train/data.h src/util/rng.h src/format/svg.h \
 src/format/svg_heatmap.h src/util/atomic_file.h src/util/dirs.h \
 src/util/err.h src/util/format_bytes.h src/util/pool.h
src/attention/decay.h:
src/attention/attention.h:
src/attention/options.h:
src/cmd/commands.h:
src/cmd/inspect_probe.h:
src/model/model.h:
src/autograd/ops.h:
src/autograd/tape.h:
src/kernels/bf16.h:
src/config/config.h:
src/cmd/args.h:
src/cmd/run_load.h:
src/train/checkpoint.h:
src/train/optimizer.h:
src/train/data.h:
src/util/rng.h:
src/format/svg.h:
src/format/svg_heatmap.h:
src/util/atomic_file.h:
src/util/dirs.h:
src/util/err.h:
src/util/format_bytes.h:
src/util/pool.h:
