// fuzz_checkpoint.c — libFuzzer harness: the checkpoint container and loader
// (target body in fuzz_targets.h). Build and run: `make fuzz` (see
// tests/fuzz/README.md).
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_checkpoint_one(data, size); }
