# lmtrain — build, test, data, ablation. GNU Make, gcc, nothing else.
#
#   make              build ./lmtrain
#   make test         build and run every test (SAN=1: under ASan + UBSan)
#   make data         put data/tinyshakespeare.txt in place (SHAKESPEARE=path to copy a local file)
#   make ablation     the three-way ablation into runs/ablation
#   make recall       the recall ablation and the pairs sweep into runs/recall
#   make bench        peak FLOP/s, training throughput, cost vs length

CC      ?= gcc
# No -ffast-math: it makes isnan() lie and NaN detection is a feature.
CFLAGS  ?= -O3 -march=native
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -MMD -MP
LDLIBS  += -lm -lpthread

BUILD   := build
ifeq ($(SAN),1)
BUILD   := build-san
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
           -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Isrc -MMD -MP
LDFLAGS += -fsanitize=address,undefined
endif

SRCS      := $(shell find src -name '*.c' ! -name main.c | sort)
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(shell find tests -name 'test_*.c' | sort)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)
BIN       := $(if $(filter 1,$(SAN)),$(BUILD)/lmtrain,lmtrain)

.PHONY: all test data ablation recall bench clean
all: $(BIN)

$(BIN): $(BUILD)/src/main.o $(BUILD)/liblmtrain.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/liblmtrain.a: $(OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(BUILD)/liblmtrain.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/liblmtrain.a $(LDFLAGS) $(LDLIBS)

test: $(BIN) $(TEST_BINS)
	@LMTRAIN=$(abspath $(BIN)) sh tests/run.sh $(TEST_BINS)

SHAKESPEARE_URL := https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt
SHAKESPEARE_SHA := 86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed
data: data/tinyshakespeare.txt
data/tinyshakespeare.txt:
	@sh data/fetch.sh "$@" "$(SHAKESPEARE_SHA)" "$(SHAKESPEARE_URL)" "$(SHAKESPEARE)"

ablation: data $(BIN)
	./$(BIN) ablate configs/softmax.ini configs/linear.ini configs/linear_decay.ini --out runs/ablation

clean:
	rm -rf build build-san lmtrain

-include $(OBJS:.o=.d) $(BUILD)/src/main.d
