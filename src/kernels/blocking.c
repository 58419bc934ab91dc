// blocking.c — which blocking the products use on this CPU (blocking.h):
// the tuning file, else the table, else the defaults.
// Baseline code: it reads cpu_info(), never runs a wider instruction.
#include "kernels/blocking.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The blocking the code was tuned with on Zen 5 (gemm_kernels.h's comment):
// MC = 24 register tiles of rows, NC = 16 of columns, on every path. dYᵀ
// packed where its rows are a page apart, as on the one Intel measured (in
// place lost 20-27 % there at those strides); Zen 5, which read every stride
// in place faster, has its own entry.
static const GemmBlocking DEFAULT_BLOCKING = {24, 16, 1};

// CPUs whose blocking was measured (docs/performance.md; commit messages hold the
// runs). model -1: any model of that family. isa -1: every path.
static const struct {
    const char *vendor;
    int family, model, isa;
    GemmBlocking b;
    const char *name;
} TABLE[] = {
    // Zen 5: the defaults, where they were measured (KC 128..512, MC 96..768,
    // NC 256..2048 within noise of each other)
    {"AuthenticAMD", 0x1A, -1, -1, {24, 16, 0}, "AMD Zen 5"},
    // Intel Xeon, Emerald Rapids (2 MiB L2 per core; 2-vCPU VM): on AVX-512
    // every candidate of `bench --part tune` was within 3 % of the defaults
    // (MC 12..48, NC 8..64 tiles). On AVX2 NC 64 took 3-6 % off the layers'
    // products, one thread, yet the 2-thread training step was no faster
    // (softmax 2-4 % slower, the others within noise, alternating runs): the
    // defaults on every path. Packing dYᵀ for the weights' gradients took their
    // large-model products from 110-125 to 133-145 GFLOP/s; the baby model's,
    // rows under 4 KiB apart, run 4-12 % faster read in place (AVX2, AVX-512).
    {"GenuineIntel", 6, 207, -1, {24, 16, 1}, "Intel Xeon, Emerald Rapids"},
};

GemmBlocking gemm_blocking_builtin(const CpuInfo *cpu, KernelIsa isa, const char **why) {
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (!strcmp(TABLE[i].vendor, cpu->vendor) && TABLE[i].family == cpu->family &&
            (TABLE[i].model < 0 || TABLE[i].model == cpu->model) && (TABLE[i].isa < 0 || TABLE[i].isa == (int)isa)) {
            if (why) *why = TABLE[i].name;
            return TABLE[i].b;
        }
    if (why) *why = NULL;
    return DEFAULT_BLOCKING;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int chosen;  // 0: not yet
static GemmBlocking current[KERNEL_N_ISAS];
static char source[600];

// Makes the choice (mu held).
static void choose(const char *cache_dir) {
    const CpuInfo *cpu = cpu_info();
    const char *why = NULL;
    for (int i = 0; i < KERNEL_N_ISAS; i++) current[i] = gemm_blocking_builtin(cpu, (KernelIsa)i, &why);
    why = NULL;
    gemm_blocking_builtin(cpu, kernel_isa(), &why);
    if (why)
        snprintf(source, sizeof source, "table (%s)", why);
    else
        snprintf(source, sizeof source, "default (no table entry for %s family %d model %d; "
                 "`lmtrain bench --part tune` measures this CPU's)", cpu->vendor[0] ? cpu->vendor : "this CPU",
                 cpu->family, cpu->model);
    char path[512], err[400];
    if (blocking_file_path(cpu, cache_dir, path, sizeof path)) {
        __atomic_store_n(&chosen, 1, __ATOMIC_RELEASE);
        return;
    }
    GemmBlocking b[KERNEL_N_ISAS];
    memcpy(b, current, sizeof b);
    int r = blocking_file_read(path, cpu, b, err, sizeof err);
    if (r < 0)
        fprintf(stderr, "lmtrain: warning: tuning file %s ignored (%s); using the %s blocking\n", path, err,
                why ? "table's" : "default");
    if (r > 0) {
        memcpy(current, b, sizeof b);
        snprintf(source, sizeof source, "tuned (%s)", path);
    }
    __atomic_store_n(&chosen, 1, __ATOMIC_RELEASE);
}

GemmBlocking gemm_blocking(KernelIsa isa) {
    // a plain read once chosen: the values never change while products run
    if (!__atomic_load_n(&chosen, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&mu);
        if (!chosen) choose(NULL);
        pthread_mutex_unlock(&mu);
    }
    return current[isa];
}

const char *gemm_blocking_source(void) {
    gemm_blocking(kernel_isa());
    return source;
}

void gemm_blocking_set(KernelIsa isa, GemmBlocking b, const char *src) {
    gemm_blocking(isa);
    pthread_mutex_lock(&mu);
    current[isa] = b;
    snprintf(source, sizeof source, "%s", src);
    pthread_mutex_unlock(&mu);
}

void gemm_blocking_reload(const char *cache_dir) {
    pthread_mutex_lock(&mu);
    choose(cache_dir);
    pthread_mutex_unlock(&mu);
}

void gemm_blocking_describe(char *out, size_t n) {
    GemmBlocking b = gemm_blocking(kernel_isa());
    snprintf(out, n, "blocking: mc %d tiles, nc %d tiles, dYᵀ %s; %s", b.mc_tiles, b.nc_tiles,
             kernel_isa() == KERNEL_PORTABLE ? "packed (this path always packs it)"
             : b.pack_at                     ? "packed where its rows are 4 KiB apart"
                                             : "read in place",
             gemm_blocking_source());
}
