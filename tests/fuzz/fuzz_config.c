// fuzz_config.c — libFuzzer harness: the INI reader, --set overrides,
// validation and the write/read round trip (target body in fuzz_targets.h).
// Build and run: `make fuzz` (see tests/fuzz/README.md).
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_config_one(data, size); }
