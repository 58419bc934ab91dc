# lmtrain — build, test, data, ablation. GNU Make, gcc, nothing else.
#
#   make              build ./lmtrain: one binary for any CPU of the target (x86-64: baseline
#                     SSE2); its kernels, compiled once per path (avx512, avx2, portable), are
#                     picked at start from the CPU (LMTRAIN_ISA=avx2 etc. forces one)
#   make test         build and run every test, the kernel tests on every path the CPU has
#                     (SAN=1: under ASan + UBSan; KERNELS=avx2 or portable: every test with
#                     that path forced; RUN_WRAPPER, TEST_ONLY: under an emulator, a subset)
#   make install      the binary and the shipped configs (PREFIX=/usr/local, DESTDIR)
#   make CC=aarch64-linux-gnu-gcc   a cross build, in build-aarch64/
#   make data         put data/tinyshakespeare.txt in place (SHAKESPEARE=path to copy a local file)
#   make ablation     the three-way ablation into runs/ablation, SEEDS seeds each (default 3;
#                     SEEDS=1 the quick one-seed version)
#   make recall       associative recall, 7 kinds x 3 seeds: state size and pairs sweeps (runs/recall;
#                     RECALL_STEPS steps each, default 500)
#   make recall-long  recall at 5 000 steps: 8 pairs at head size 8, 32 and 16 pairs at head size
#                     16 and block 128 (runs/recall_long; ~82 CPU-minutes, ~41 min on 2 idle cores)
#   make frontier     loss against CPU-seconds, 5 kinds x context 64, 256, 1024 x SEEDS seeds
#                     (runs/frontier; docs/frontier.md); make frontier-short: a few minutes
#   make bench        peak FLOP/s, training throughput, cost vs length, generation speed
#   make bench-compare  lmtrain vs PyTorch training tokens/s on this machine (needs python3-torch)
#   make fuzz         libFuzzer harnesses, FUZZ_SECONDS each (needs clang)
#   make test-valgrind  training, resume and sampling under valgrind memcheck
#   make test-tsan    the threaded tests under ThreadSanitizer
#   make test-html    report.html and the tour rendered in headless Chromium (needs Debian's chromium)
#   make tour         runs/tour/index.html: the article's claims, each measured on this machine

# A plain `make` (the binary) compiles on every core: each kernel file is
# compiled once per path, and one core took a minute. A -j on the command line
# (-j1 too) wins over this; other goals keep make's own default, since some
# run their steps in order.
ifeq ($(filter-out all lmtrain,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

CC      ?= gcc
# No -ffast-math: it makes isnan() lie and NaN detection is a feature. No
# -march either: the program runs on any CPU of its target (x86-64: SSE2); only
# the kernel files get wider instructions, per variant (below).
CFLAGS  ?= -O3
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -MMD -MP
LDLIBS  += -lm -lpthread

BASE_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -MMD -MP
# The target's machine: a cross build (CC=aarch64-linux-gnu-gcc) goes to its
# own folder, build-<machine>, and its binary to build-<machine>/lmtrain.
TARGET_MACHINE := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
BUILD   := $(if $(filter-out $(shell uname -m),$(TARGET_MACHINE)),build-$(TARGET_MACHINE),build)
# SAN=1: ASan + UBSan; the kernel variants keep their own flags, so the
# AVX-512 kernels still run under them.
ifeq ($(SAN),1)
BUILD   := $(BUILD)-san
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=undefined $(BASE_CFLAGS)
LDFLAGS += -fsanitize=address,undefined
endif

# Kernel variants (src/kernels/isa.h). Each kernel file is compiled once per
# path of the target, build/src/kernels/gemm.avx512.o and so on, with that
# path's flags and its exported names suffixed (KERNEL_ISA); kernels/dispatch.c
# picks one path when the program starts (cpuid, LMTRAIN_ISA: kernels/cpu.h).
# Everything else is compiled once, for the baseline. x86-64 has three paths;
# other targets the portable one (plain C).
KERNEL_SRCS := $(addprefix src/kernels/,crossentropy.c fma_chains.c gelu.c gemm.c gemm_bf16.c \
                 gemm_kernels.c gemm_neon.c layernorm.c matvec.c matvec_i8.c optim.c vexp.c) \
               $(addprefix src/attention/,delta_chunk.c delta_wy.c feature_map.c softmax_cache.c \
                 softmax_rows.c wy_kernels.c)
ifeq ($(TARGET_MACHINE),x86_64)
ISAS := avx512 avx2 portable
else
ISAS := portable
endif
ISA_FLAGS_avx512   := -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma
ISA_FLAGS_avx2     := -mavx2 -mfma
ISA_FLAGS_portable :=
# $(call kernel_objs,BUILD-FOLDER): every variant object of every kernel file
kernel_objs = $(foreach i,$(ISAS),$(KERNEL_SRCS:%.c=$(1)/%.$(i).o))
# $(call kernel_rules,BUILD-FOLDER,COMPILER AND FLAGS): each variant's pattern rule
define kernel_rule
$(1)/%.$(3).o: %.c
	@mkdir -p $$(dir $$@)
	$(2) $$(ISA_FLAGS_$(3)) -DKERNEL_ISA=$(3) -DKERNEL_IN_$$(notdir $$(*D)) -c -o $$@ $$<
endef
kernel_rules = $(foreach i,$(ISAS),$(eval $(call kernel_rule,$(1),$(2),$(i))))

# KERNELS=avx2 or portable: an alias kept from the per-path builds; `make test
# KERNELS=x` runs every test with LMTRAIN_ISA=x (the one build has every path).
ifneq ($(KERNELS),)
ifeq ($(filter $(KERNELS),$(ISAS)),)
$(error KERNELS must be one of $(ISAS), not "$(KERNELS)")
endif
export LMTRAIN_ISA := $(KERNELS)
endif

SRCS      := $(shell find src -name '*.c' ! -name main.c | sort)
BASE_SRCS := $(filter-out $(KERNEL_SRCS),$(SRCS))
OBJS      := $(BASE_SRCS:%.c=$(BUILD)/%.o) $(call kernel_objs,$(BUILD))
TEST_SRCS := $(shell find tests -name 'test_*.c' | sort)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)
# Code only the tests use (e.g. the strict readers of formats lmtrain only
# writes): tests/<layer>/*_read.c, linked into the tests, never the binary.
TEST_LIB_SRCS := $(shell find tests -name '*_read.c' | sort)
TEST_LIB_OBJS := $(TEST_LIB_SRCS:%.c=$(BUILD)/%.o)
BIN       := $(if $(filter build,$(BUILD)),lmtrain,$(BUILD)/lmtrain)

.PHONY: all test test-html install FORCE test-docs tour data ablation recall recall-long frontier frontier-short bench bench-compare clean
all: $(BIN)

# `make install`: the binary to $(DESTDIR)$(PREFIX)/bin and the shipped configs
# to $(DESTDIR)$(PREFIX)/share/lmtrain/configs, where --config finds a bare name
# (the path compiled into cli.o; also found beside the binary's bin/, so a
# DESTDIR staging runs as installed). A PREFIX change rebuilds cli.o.
PREFIX ?= /usr/local
$(BUILD)/src/cmd/cli.o: CFLAGS += -DLMTRAIN_SHARE_CONFIGS='"$(PREFIX)/share/lmtrain/configs"'
$(BUILD)/src/cmd/cli.o: $(BUILD)/prefix.txt
$(BUILD)/prefix.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@
FORCE:
install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/lmtrain/configs
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/lmtrain
	install -m 644 configs/*.ini $(DESTDIR)$(PREFIX)/share/lmtrain/configs/


$(BIN): $(BUILD)/src/main.o $(BUILD)/liblmtrain.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/liblmtrain.a: $(OBJS)
	@rm -f $@
	ar rcs $@ $^

# Every object depends on the compiler and flags it was built with: a change
# (a new CFLAGS default, CC) rebuilds them all, so no object compiled for
# another CPU (the old -march=native) stays in the one binary.
$(BUILD)/flags.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/flags.txt
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(call kernel_rules,$(BUILD),$$(CC) $$(CFLAGS))
$(call kernel_objs,$(BUILD)): $(BUILD)/flags.txt

$(BUILD)/tests/%.o: tests/%.c $(BUILD)/flags.txt
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c -o $@ $<

$(BUILD)/libtest.a: $(TEST_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/%: tests/%.c $(BUILD)/libtest.a $(BUILD)/liblmtrain.a $(BUILD)/flags.txt
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/libtest.a $(BUILD)/liblmtrain.a $(LDFLAGS) $(LDLIBS)

# The hand-run measurements (tests/bench_*.c, each header says how to run it):
# built by every `make test`, in every build variant, so none stops compiling
# unnoticed; never run by it (they time things and assert nothing).
BENCH_TOOL_SRCS := $(shell find tests -maxdepth 1 -name 'bench_*.c' | sort)
BENCH_TOOL_BINS := $(BENCH_TOOL_SRCS:%.c=$(BUILD)/%)

# RUN_WRAPPER: a command each test program and lmtrain run under (an emulator:
# "qemu-x86_64 -cpu Nehalem", "qemu-aarch64 -L /usr/aarch64-linux-gnu"; .ci/run).
# TEST_ONLY: the tests to run, by name under tests/, % a wildcard
# ("kernels/% e2e/test_train"), default all; TEST_SKIP: tests left out (said
# by the caller: .ci/run).
TEST_RUN_BINS := $(filter-out $(addprefix $(BUILD)/tests/,$(TEST_SKIP)),\
                   $(if $(TEST_ONLY),$(filter $(addprefix $(BUILD)/tests/,$(TEST_ONLY)),$(TEST_BINS)),$(TEST_BINS)))
TEST_LMTRAIN  := $(if $(RUN_WRAPPER),$(BUILD)/lmtrain-wrapped,$(BIN))
$(BUILD)/lmtrain-wrapped: $(BIN) FORCE
	@printf '#!/bin/sh\nexec %s %s "$$@"\n' '$(RUN_WRAPPER)' '$(abspath $(BIN))' > $@ && chmod +x $@

test: $(BIN) $(TEST_BINS) $(BENCH_TOOL_BINS) $(TEST_LMTRAIN)
	@sh tests/layers.sh
	@sh tests/kernels/baseline_check.sh $(BASE_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/src/main.o
	@LMTRAIN=$(abspath $(TEST_LMTRAIN)) LMTRAIN_ISAS='$(ISAS)' TEST_WRAPPER='$(RUN_WRAPPER)' \
	  sh tests/run.sh $(TEST_RUN_BINS)

SHAKESPEARE_URL := https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt
SHAKESPEARE_SHA := 86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed
data: data/tinyshakespeare.txt
data/tinyshakespeare.txt:
	@sh data/fetch.sh "$@" "$(SHAKESPEARE_SHA)" "$(SHAKESPEARE_URL)" "$(SHAKESPEARE)"

# Every kind with the seeds 1337 .. 1337+SEEDS-1; runs already finished are kept,
# so SEEDS=1 after SEEDS=3 (or a second `make ablation`) only rebuilds the report.
SEEDS ?= 3
ablation: data $(BIN)
	./$(BIN) ablate configs/softmax.ini configs/linear.ini configs/linear_decay.ini --seeds $(SEEDS) --out runs/ablation

# Associative recall (docs/recall.md): 7 kinds x 3 paired seeds (1, 2, 3), two
# sweeps, RECALL_STEPS steps per run (500 keeps both sweeps near 15 minutes of
# wall time on 2 idle cores; the measure is in docs/recall.md), validation
# accuracy at the start, halfway and the end; all at block 64, vocab 64, 32
# sequences a step:
#   state: 8 pairs at head size 8, 16, 32 (d_model 32, 64, 128; 4 heads)
#                                   -> runs/recall/state (63 runs)
#   pairs: 2, 4, 16 pairs at head size 16 (d_model 64); the 8-pair column is
#          the state sweep's head size 16 -> runs/recall/pairs (63 runs)
# 16 pairs fill block 64 (4 x pairs <= block_size); 32 pairs would need block
# 128, where 500 steps do not learn even 8 pairs (docs/recall.md).
# linear first: the reports' paired differences are against it. The runs go
# through `ablate --plan` lines, RECALL_JOBS at once (one thread each); lines
# whose run folder exists are left out, and `ablate --resume` then finishes
# any interrupted run and writes each report (only the reports if all are
# done: a second `make recall` trains nothing).
# $(call run_plan,PLAN,LOG): the lines of PLAN (from `ablate --plan`) whose run
# folder does not exist yet, RECALL_JOBS at once; their output to LOG.
run_plan = awk '{ for (i = 1; i < NF; i++) if ($$i == "--out") d = $$(i + 1); if (system("test -e " d)) print }' \
	    $(1) | tr '\n' '\0' | xargs -0 -r -n 1 -P $(RECALL_JOBS) sh -c > $(2)
RECALL_CONFIGS := $(patsubst %,configs/recall_%.ini,linear softmax linear_decay delta delta_sum \
                  linear_decay_data delta_data)
RECALL_STEPS   ?= 500
RECALL_JOBS    ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
RECALL_COMMON  := $(RECALL_CONFIGS) --seeds 3 --set run.seed=1 --set train.steps=$(RECALL_STEPS) \
                  --set train.eval_every=$(shell expr $(RECALL_STEPS) / 2)
RECALL_STATE   := $(RECALL_COMMON) --set model.d_model=32 --out runs/recall/state --sweep model.d_model=64,128
RECALL_PAIRS   := $(RECALL_COMMON) --set data.pairs=2 --out runs/recall/pairs --sweep data.pairs=4,16
recall: $(BIN)
	@mkdir -p runs/recall
	./$(BIN) ablate $(RECALL_STATE) --plan --jobs $(RECALL_JOBS) > runs/recall/plan.txt
	./$(BIN) ablate $(RECALL_PAIRS) --plan --jobs $(RECALL_JOBS) >> runs/recall/plan.txt
	$(call run_plan,runs/recall/plan.txt,runs/recall/train.log)
	./$(BIN) ablate $(RECALL_STATE) --resume >> runs/recall/train.log
	./$(BIN) ablate $(RECALL_PAIRS) --resume >> runs/recall/train.log
	@echo "recall: runs/recall/state/report.md (state size) and runs/recall/pairs/report.md (pairs)"

# Long recall (docs/recall.md, "Capacity: 5 000 steps"): capacity, not learning
# speed. The same 7 kinds x seeds 1, 2, 3, RECALL_LONG_STEPS (5 000) steps each,
# validation every 500 steps:
#   state8:  8 pairs at head size 8 (d_model 32), block 64 -> runs/recall_long/state8
#   pairs32: 32 pairs at head size 16 (d_model 64) at block 128, vocab 128 and 16
#            sequences a step (the same 2 048 tokens)      -> runs/recall_long/pairs32
#   pairs16: 16 pairs with the same block-128 settings, the same-block cell to
#            compare 32 pairs with                        -> runs/recall_long/pairs16
# 63 runs, the same plan/xargs/--resume shape as `make recall` (a second
# `make recall-long` trains nothing). Measured: 4 941 CPU-s (user + sys; state8
# and pairs32 3 029, pairs16 1 912) and 85 min of wall time with 2 runs at once
# on a machine shared with other jobs (load 2-9 on 2 cores), so about 41 min
# on 2 idle cores (docs/recall.md).
RECALL_LONG_STEPS  ?= 5000
RECALL_LONG_COMMON := $(RECALL_CONFIGS) --seeds 3 --set run.seed=1 --set train.steps=$(RECALL_LONG_STEPS) \
                      --set train.eval_every=500
RECALL_BLOCK128    := --set model.block_size=128 --set data.vocab=128 --set train.batch_size=16
RECALL_LONG_STATE  := $(RECALL_LONG_COMMON) --set model.d_model=32 --out runs/recall_long/state8
RECALL_LONG_P32    := $(RECALL_LONG_COMMON) $(RECALL_BLOCK128) --set data.pairs=32 --out runs/recall_long/pairs32
RECALL_LONG_P16    := $(RECALL_LONG_COMMON) $(RECALL_BLOCK128) --set data.pairs=16 --out runs/recall_long/pairs16
recall-long: $(BIN)
	@mkdir -p runs/recall_long
	./$(BIN) ablate $(RECALL_LONG_STATE) --plan --jobs $(RECALL_JOBS) > runs/recall_long/plan.txt
	./$(BIN) ablate $(RECALL_LONG_P32) --plan --jobs $(RECALL_JOBS) >> runs/recall_long/plan.txt
	./$(BIN) ablate $(RECALL_LONG_P16) --plan --jobs $(RECALL_JOBS) >> runs/recall_long/plan.txt
	$(call run_plan,runs/recall_long/plan.txt,runs/recall_long/train.log)
	./$(BIN) ablate $(RECALL_LONG_STATE) --resume >> runs/recall_long/train.log
	./$(BIN) ablate $(RECALL_LONG_P32) --resume >> runs/recall_long/train.log
	./$(BIN) ablate $(RECALL_LONG_P16) --resume >> runs/recall_long/train.log
	@echo "recall-long: runs/recall_long/state8, pairs32 and pairs16: report.md in each"

# The loss-compute frontier (docs/frontier.md): softmax, linear_decay, delta and
# the two decay = data kinds, pos = none, at each context length in
# FRONTIER_LENGTHS with FRONTIER_TOKENS training tokens a step (batch_size =
# FRONTIER_TOKENS / length), FRONTIER_STEPS steps, SEEDS seeds: one ablation per
# length into $(FRONTIER_OUT)/ctx<N> (each prints its estimate, then an overall
# progress line with ETA), then `lmtrain frontier` reads them all. Each ablate
# line is printed as it runs; with --plan in place of --resume, one prints its runs
# as shell lines (for xargs -P, parallel or Slurm, as make recall runs them).
# Ctrl-C keeps what finished; `make frontier` again continues (--resume).
# Sized from short measured steps (`ablate` prints the estimate) and the idle
# 2-core rate of `make ablation` (README): the default (45 runs of 3 000 steps)
# about an hour on 2 idle Zen 5 cores (estimated; 116 minutes timed on a shared
# 2-vCPU Xeon, docs/frontier.md), SEEDS=1 a third of it; frontier-short (a
# check that it all runs) a few minutes: 1 seed, 200 steps, 8 eval batches.
FRONTIER_CONFIGS := $(patsubst %,configs/frontier_%.ini,softmax linear_decay delta delta_data linear_decay_data)
FRONTIER_LENGTHS ?= 64 256 1024
FRONTIER_TOKENS  ?= 1024
FRONTIER_STEPS   ?= 3000
FRONTIER_EVAL_BATCHES ?= 20
FRONTIER_OUT     ?= runs/frontier
frontier_args = $(FRONTIER_CONFIGS) --seeds $(SEEDS) --set model.block_size=$(1) --set train.batch_size=$(shell expr $(FRONTIER_TOKENS) / $(1)) --set train.steps=$(FRONTIER_STEPS) --set train.eval_batches=$(FRONTIER_EVAL_BATCHES) --set train.eval_every=$(shell expr $(FRONTIER_STEPS) / 10) --set train.warmup=$(shell expr $(FRONTIER_STEPS) / 25) --set train.checkpoint_every=$(shell expr $(FRONTIER_STEPS) / 5) --out $(FRONTIER_OUT)/ctx$(1) --resume
define newline


endef
frontier: data $(BIN)
	@echo "frontier: the estimate of each context length's ablation first (ablate --estimate), then the runs"
	@$(foreach T,$(FRONTIER_LENGTHS),./$(BIN) ablate $(call frontier_args,$(T)) --estimate | sed 's/^/ctx$(T): /'$(newline))
	$(foreach T,$(FRONTIER_LENGTHS),./$(BIN) ablate $(call frontier_args,$(T))$(newline))
	./$(BIN) frontier $(FRONTIER_OUT)
frontier-short:
	$(MAKE) frontier SEEDS=1 FRONTIER_STEPS=200 FRONTIER_EVAL_BATCHES=8 FRONTIER_OUT=runs/frontier_short

# report.html opened in a real browser: every chart and table rendered, no
# parse error, not a blank page (tests/html/render_check.sh; CI runs it)
test-html: $(BIN)
	sh tests/html/render_check.sh ./$(BIN)
	sh tests/html/tour_check.sh ./$(BIN)

# the article's claims, each measured on this machine: runs/tour/index.html
# (lmtrain tour --help; finished runs are reused, so a second `make tour` only
# rebuilds the page)
tour: data $(BIN)
	./$(BIN) tour

# every relative link and #anchor in README.md and docs/ resolves (python3)
test-docs:
	python3 tests/docs/check_links.py .

clean:
	rm -rf build build-* lmtrain

-include $(OBJS:.o=.d) $(TEST_LIB_OBJS:.o=.d) $(BUILD)/src/main.d $(TEST_BINS:=.d) $(BENCH_TOOL_BINS:=.d)

# ---- hardening: fuzzing and valgrind (tests/fuzz/README.md) -----------------
#   make fuzz           build both libFuzzer harnesses and run each for FUZZ_SECONDS
#                       (default 600; `make -j2 fuzz` runs them side by side).
#                       Needs clang with libFuzzer (Debian: apt-get install clang).
#   make test-valgrind  short training runs, a resume and sample runs under valgrind memcheck
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_BUILD   := build/fuzz
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -Itests -MMD -MP
FUZZ_OBJS    := $(BASE_SRCS:%.c=$(FUZZ_BUILD)/%.o) $(call kernel_objs,$(FUZZ_BUILD))
FUZZ_TARGETS := config checkpoint
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz fuzz-build $(FUZZ_TARGETS:%=fuzz-%)
fuzz: $(FUZZ_TARGETS:%=fuzz-%)
fuzz-build: $(FUZZ_BINS)

# New inputs go to build/fuzz/corpus_NAME (the committed seeds in
# tests/fuzz/corpus_NAME are only read); crashes to build/fuzz/artifacts/.
$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_BUILD)/fuzz_%
	@mkdir -p $(FUZZ_BUILD)/corpus_$* $(FUZZ_BUILD)/artifacts
	@echo "fuzzing $* for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/fuzz_$*.log)"
	@$(FUZZ_BUILD)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$*- \
	    $(FUZZ_BUILD)/corpus_$* tests/fuzz/corpus_$* > $(FUZZ_BUILD)/fuzz_$*.log 2>&1 \
	  || { tail -n 60 $(FUZZ_BUILD)/fuzz_$*.log; echo "fuzz-$*: FAILED, input in $(FUZZ_BUILD)/artifacts/"; exit 1; }
	@grep -E '^(Done|stat::number_of_executed_units)' $(FUZZ_BUILD)/fuzz_$*.log; echo "fuzz-$*: clean"

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(call kernel_rules,$(FUZZ_BUILD),$$(FUZZ_CC) $$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) -lm -lpthread

# keep the objects: they are only reached through the pattern rule above
.SECONDARY: $(FUZZ_OBJS)
-include $(FUZZ_OBJS:.o=.d) $(FUZZ_BINS:=.d)

# ---- benchmarks (SPEC §8; src/cmd/bench.c, the suite in src/bench/) --------------------------------
# peak FLOP/s, training throughput, cost vs length, generation speed -> runs/bench/
bench: $(BIN)
	./$(BIN) bench

# First lmtrain's products beside numpy's BLAS (OpenBLAS) on each instruction-set
# path of this CPU, the same shapes, 1 thread (tests/reference/blas_anchor.py;
# Debian's python3-numpy and libopenblas0-pthread); then lmtrain against PyTorch
# (Debian's python3-torch, hence /usr/bin/python3) on the baby model,
# interleaved rounds, ratio per round and median
# (tests/reference/bench_compare.py; BENCH_COMPARE_ARGS e.g. --rounds 9 --threads 2)
PYTHON_TORCH ?= /usr/bin/python3
bench-compare: $(BIN)
	$(PYTHON_TORCH) tests/reference/blas_anchor.py --lmtrain ./$(BIN)
	$(PYTHON_TORCH) tests/reference/bench_compare.py --lmtrain ./$(BIN) $(BENCH_COMPARE_ARGS)

# ---- ThreadSanitizer ---------------------------------------------------------
# The tests that run the pool's threads over shared buffers (the sharded
# passes, the products' splits, AdamW's spans, the attention kinds' slabs),
# under gcc's ThreadSanitizer in their own build: the bits those tests compare
# cannot see a race that happened to write the right values. Any report fails
# the target.
TSAN_BUILD  := build/tsan
TSAN_CFLAGS := -O1 -g -fsanitize=thread -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -Itests \
               -MMD -MP
TSAN_OBJS   := $(BASE_SRCS:%.c=$(TSAN_BUILD)/%.o) $(call kernel_objs,$(TSAN_BUILD)) \
               $(TEST_LIB_SRCS:%.c=$(TSAN_BUILD)/%.o)
TSAN_TESTS  := util/test_pool autograd/test_tape_shards autograd/test_attention_io autograd/test_fused_ops \
               kernels/test_gemm kernels/test_optim train/test_bits model/test_bf16_step
TSAN_BINS   := $(TSAN_TESTS:%=$(TSAN_BUILD)/tests/%)

.PHONY: test-tsan
test-tsan: $(TSAN_OBJS) $(TSAN_BINS)
	@set -e; for t in $(TSAN_BINS); do \
	  echo "tsan: $$t"; \
	  TSAN_OPTIONS="halt_on_error=1 exitcode=66" $$t > $$t.log 2>&1 || { cat $$t.log; exit 1; }; \
	  tail -1 $$t.log; \
	done
	@echo "tsan: no data races reported"

$(TSAN_BUILD)/tests/%: tests/%.c $(TSAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) -o $@ $< $(TSAN_OBJS) -fsanitize=thread $(LDLIBS)

$(TSAN_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) -c -o $@ $<
$(call kernel_rules,$(TSAN_BUILD),$$(CC) $$(TSAN_CFLAGS))

-include $(TSAN_OBJS:.o=.d) $(TSAN_BINS:=.d)

# ---- valgrind memcheck (part of the hardening block above) ------------------
# Its own build: valgrind cannot run AVX-512, so the runs force the AVX2
# kernels (LMTRAIN_ISA=avx2), which keeps them under test. Each kind trains a few steps
# (every file written, evaluation, checkpoints), resumes once, and samples;
# the recall task trains once. Any leak or invalid access fails the target.
VG_BUILD  := build/valgrind
VG_CFLAGS := -O2 -g -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -MMD -MP
VG_OBJS   := $(BASE_SRCS:%.c=$(VG_BUILD)/%.o) $(call kernel_objs,$(VG_BUILD))
VALGRIND  ?= valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
             --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes --error-exitcode=1
VG_SETS   := --set run.threads=2 --set model.layers=2 --set model.heads=2 --set model.d_model=16 \
             --set model.block_size=16 --set train.batch_size=2 --set train.steps=3 --set train.warmup=1 \
             --set train.eval_every=2 --set train.eval_batches=2 --set train.log_every=1 \
             --set train.checkpoint_every=1 --set attention.chunk=5
VG_KINDS  ?= softmax linear linear_decay delta

.PHONY: test-valgrind
test-valgrind: export LMTRAIN_ISA := $(if $(filter avx2,$(ISAS)),avx2)
test-valgrind: $(VG_BUILD)/lmtrain data
	@rm -rf $(VG_BUILD)/runs
	@set -e; for k in $(VG_KINDS); do \
	  echo "valgrind: train, resume and sample $$k"; \
	  $(VALGRIND) $(VG_BUILD)/lmtrain --config configs/$$k.ini --out $(VG_BUILD)/runs/$$k $(VG_SETS) > /dev/null; \
	  $(VALGRIND) $(VG_BUILD)/lmtrain --config configs/$$k.ini --out $(VG_BUILD)/runs/$$k $(VG_SETS) \
	    --set train.steps=4 --resume > /dev/null 2>&1; \
	  $(VALGRIND) $(VG_BUILD)/lmtrain sample --run $(VG_BUILD)/runs/$$k --prompt "ROMEO:" --tokens 40 > /dev/null; \
	done
	@echo "valgrind: train the recall task"
	@$(VALGRIND) $(VG_BUILD)/lmtrain --config configs/recall_linear_decay.ini --out $(VG_BUILD)/runs/recall \
	  $(VG_SETS) --set model.block_size=32 --set data.val_examples=4 > /dev/null
	@echo "valgrind: clean (no leaks, no invalid accesses)"

$(VG_BUILD)/lmtrain: $(VG_BUILD)/src/main.o $(VG_OBJS)
	$(CC) -o $@ $^ $(LDLIBS)

$(VG_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c -o $@ $<
$(call kernel_rules,$(VG_BUILD),$$(CC) $$(VG_CFLAGS))

.SECONDARY: $(VG_OBJS) $(VG_BUILD)/src/main.o
-include $(VG_OBJS:.o=.d) $(VG_BUILD)/src/main.d
