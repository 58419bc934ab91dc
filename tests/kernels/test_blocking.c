// test_blocking.c — the products' blocking per CPU (kernels/blocking.h):
// every blocking gives the same bits; the tuning file is read strictly, and a
// corrupt, foreign or unreadable one is ignored with a warning, the table's or
// the default blocking then in force. dYᵀ packed or read in place for the
// weights' gradients is part of the blocking (pack_at) and is tested with it. Runs on the path LMTRAIN_ISA picks (make
// test runs it on each); never reads the user's cache (a folder of its own).
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "kernels/blocking.h"
#include "kernels/gemm.h"

static char dir[256];

static float *rnd(size_t n, uint32_t seed) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)(seed >> 8) / (float)(1 << 24) - 0.5f;
    }
    return p;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

// The product's bits under blocking b (NULL: the one chosen at start).
static float *product(const GemmBlocking *b, int ta, int tb, size_t M, size_t N, size_t K, float beta) {
    KernelIsa isa = kernel_isa();
    GemmBlocking keep = gemm_blocking(isa);
    if (b) gemm_blocking_set(isa, *b, "test");
    float *A = rnd(M * K, 1), *B = rnd(K * N, 2), *C = rnd(M * N, 3);
    gemm(ta, tb, M, N, K, 0.75f, A, ta ? M : K, B, tb ? K : N, beta, C, N);
    gemm_blocking_set(isa, keep, "test");
    free(A), free(B);
    return C;
}

static void test_bits_across_blockings(void) {
    // the smallest, the largest and a ragged blocking, each with dYᵀ packed and
    // read in place; K past two KC blocks; M, N not multiples of any tile;
    // every transpose; beta 0 and 1; M past GEMM_PACK_AT_MIN_LDA (gemm.c), so
    // that op(A) = Aᵀ with pack_at set is packed (shorter rows stay in place)
    const GemmBlocking bs[] = {{BLOCKING_MIN_TILES, BLOCKING_MIN_TILES, 0}, {BLOCKING_MIN_TILES, BLOCKING_MIN_TILES, 1},
                               {3, 5, 0}, {3, 5, 1}, {24, 16, 0}, {24, 16, 1},
                               {BLOCKING_MAX_MC_TILES, BLOCKING_MAX_NC_TILES, 0},
                               {BLOCKING_MAX_MC_TILES, BLOCKING_MAX_NC_TILES, 1}};
    const size_t shapes[][3] = {{200, 300, 600}, {777, 129, 70}, {64, 1100, 513}, {1100, 40, 300}, {1, 300, 600}, {300, 1, 600}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int beta = 0; beta < 2; beta++) {
                size_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                float *ref = product(NULL, t >> 1, t & 1, M, N, K, (float)beta);
                for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) {
                    float *c = product(&bs[i], t >> 1, t & 1, M, N, K, (float)beta);
                    CHECK(memcmp(c, ref, M * N * sizeof *c) == 0);
                    free(c);
                }
                free(ref);
            }
}

// the blocking really moves: a block of MC rows of a product is what the
// packing buffer holds (a change of blocking that changed nothing would leave
// the test above unable to fail)
static void test_set_takes_effect(void) {
    KernelIsa isa = kernel_isa();
    GemmBlocking keep = gemm_blocking(isa);
    gemm_blocking_set(isa, (GemmBlocking){5, 7, !keep.pack_at}, "test");
    CHECK(gemm_blocking(isa).mc_tiles == 5 && gemm_blocking(isa).nc_tiles == 7);
    CHECK(gemm_blocking(isa).pack_at == !keep.pack_at);
    CHECK(strcmp(gemm_blocking_source(), "test") == 0);
    gemm_blocking_set(isa, keep, "test");
}

static const CpuInfo *me(void) { return cpu_info(); }

static void test_file_round_trip(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/sub/gemm.txt", dir);  // the folder is created
    GemmBlocking b[KERNEL_N_ISAS] = {{4, 6, 1}, {24, 64, 0}, {12, 8, 1}}, got[KERNEL_N_ISAS] = {{0, 0, 0}, {0, 0, 1}, {0, 0, 0}};
    int have[KERNEL_N_ISAS] = {0, 1, 1};
    char why[400] = "";
    CHECK(blocking_file_write(path, me(), b, have) == 0);
    CHECK(blocking_file_read(path, me(), got, why, sizeof why) == 1);
    CHECK(got[KERNEL_PORTABLE].mc_tiles == 0 && got[KERNEL_PORTABLE].pack_at == 0);  // not in the file: left as given
    CHECK(got[KERNEL_AVX2].mc_tiles == 24 && got[KERNEL_AVX2].nc_tiles == 64 && got[KERNEL_AVX2].pack_at == 0);
    CHECK(got[KERNEL_AVX512].mc_tiles == 12 && got[KERNEL_AVX512].nc_tiles == 8 && got[KERNEL_AVX512].pack_at == 1);
    snprintf(path, sizeof path, "%s/none.txt", dir);
    CHECK(blocking_file_read(path, me(), got, why, sizeof why) == 0);  // no file: no warning
}

static int read_pack_at;  // the avx512 pack_at of the last file read_text could use

// Reads text as a tuning file; returns what blocking_file_read says, why in why.
static int read_text(const char *text, char *why, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/t.txt", dir);
    write_text(path, text);
    GemmBlocking b[KERNEL_N_ISAS] = {{24, 16, 1}, {24, 16, 1}, {24, 16, 1}};
    int r = blocking_file_read(path, me(), b, why, n);
    if (r < 0) CHECK(b[KERNEL_AVX512].mc_tiles == 24 && b[KERNEL_AVX512].nc_tiles == 16 && b[KERNEL_AVX512].pack_at == 1);  // untouched
    if (r > 0) read_pack_at = b[KERNEL_AVX512].pack_at;
    return r;
}

static void test_file_refusals(void) {
    char head[128], text[512], why[400];
    const CpuInfo *c = me();
    snprintf(head, sizeof head, "lmtrain gemm blocking 1\ncpu %s %d %d\n", c->vendor[0] ? c->vendor : "unknown",
             c->family, c->model);
    snprintf(text, sizeof text, "%savx512 12 8\n", head);  // a file of before pack_at: the given one kept
    CHECK(read_text(text, why, sizeof why) == 1 && read_pack_at == 1);
    snprintf(text, sizeof text, "%savx512 12 8 0\n", head);
    CHECK(read_text(text, why, sizeof why) == 1 && read_pack_at == 0);
    struct { const char *body, *why; } bad[] = {
        {"avx512 12\n", "line 3"},           {"avx512 12 8 2\n", "neither 0 nor 1"},  {"avx512 1 8\n", "outside"},
        {"avx512 12 8 -1\n", "neither 0 nor 1"}, {"avx512 12 8 1 1\n", "line 3"}, {"avx512 12 8 1x\n", "line 3"},
        {"avx512 12 65\n", "outside"},      {"avx9 12 8\n", "unknown path"},
        {"avx512 12 8\navx512 12 8\n", "second line"}, {"avx512 -3 8\n", "outside"}, {"avx512 12 8x\n", "line 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s", head, bad[i].body);
        why[0] = 0;
        CHECK(read_text(text, why, sizeof why) == -1);
        CHECK(strstr(why, bad[i].why) != NULL);
    }
    CHECK(read_text("lmtrain gemm blocking 2\n", why, sizeof why) == -1 && strstr(why, "line 1"));
    CHECK(read_text("", why, sizeof why) == -1 && strstr(why, "line 1"));
    CHECK(read_text("\x7f" "ELF\x01\x01\x01", why, sizeof why) == -1);
    CHECK(read_text("lmtrain gemm blocking 1\ncpu\n", why, sizeof why) == -1 && strstr(why, "line 2"));
    snprintf(text, sizeof text, "lmtrain gemm blocking 1\ncpu %s %d %d\navx512 12 8\n", "AuthenticAMD", 26, 68);
    if (!strcmp(c->vendor, "AuthenticAMD") && c->family == 26 && c->model == 68)
        snprintf(text, sizeof text, "lmtrain gemm blocking 1\ncpu GenuineIntel 6 207\navx512 12 8\n");
    CHECK(read_text(text, why, sizeof why) == -1 && strstr(why, "another CPU"));
    char path[512];
    snprintf(path, sizeof path, "%s/folder", dir);
    mkdir(path, 0700);
    GemmBlocking b[KERNEL_N_ISAS];
    CHECK(blocking_file_read(path, c, b, why, sizeof why) == -1 && strstr(why, "not a regular file"));
}

// Reloads from dir with stderr caught; returns what was written there.
static void reload_caught(char *err, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w+");
    dup2(fileno(f), 2);
    gemm_blocking_reload(dir);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t got = fread(err, 1, n - 1, f);
    err[got] = 0;
    fclose(f);
}

static void test_reload(void) {
    KernelIsa isa = kernel_isa();
    const char *why = NULL;
    GemmBlocking builtin = gemm_blocking_builtin(me(), isa, &why);
    char path[512], err[2048], text[512];
    blocking_file_path(me(), dir, path, sizeof path);
    // no file: the table's or the default blocking, silently
    unlink(path);
    reload_caught(err, sizeof err);
    CHECK(err[0] == 0);
    CHECK(gemm_blocking(isa).mc_tiles == builtin.mc_tiles && gemm_blocking(isa).nc_tiles == builtin.nc_tiles);
    CHECK(strncmp(gemm_blocking_source(), why ? "table" : "default", why ? 5 : 7) == 0);
    // a valid file of this CPU: in force, its path named
    snprintf(text, sizeof text, "lmtrain gemm blocking 1\ncpu %s %d %d\n%s 7 9\n",
             me()->vendor[0] ? me()->vendor : "unknown", me()->family, me()->model, kernel_isa_name(isa));
    write_text(path, text);
    reload_caught(err, sizeof err);
    CHECK(err[0] == 0);
    CHECK(gemm_blocking(isa).mc_tiles == 7 && gemm_blocking(isa).nc_tiles == 9);
    CHECK(strstr(gemm_blocking_source(), "tuned") && strstr(gemm_blocking_source(), path));
    // corrupt, then foreign: a warning naming the file and the problem; the built-in blocking
    const char *bad[] = {"lmtrain gemm blocking 1\ncpu x\n", "lmtrain gemm blocking 1\ncpu GenuineIntel 99 1\navx512 7 9\n"};
    const char *named[] = {"line 2", "another CPU"};
    for (int i = 0; i < 2; i++) {
        write_text(path, bad[i]);
        reload_caught(err, sizeof err);
        CHECK(strstr(err, "warning") && strstr(err, path) && strstr(err, named[i]));
        CHECK(gemm_blocking(isa).mc_tiles == builtin.mc_tiles && gemm_blocking(isa).nc_tiles == builtin.nc_tiles);
        CHECK(strstr(gemm_blocking_source(), "tuned") == NULL);
        float *c = product(NULL, 0, 1, 100, 70, 300, 0.0f);  // still computes
        free(c);
    }
    unlink(path);
}

// The table: Zen 5 keeps the blocking it was tuned with; the Emerald Rapids
// Xeon packs dYᵀ; an unknown CPU gets the defaults.
static void test_table(void) {
    CpuInfo zen5, other;
    memset(&zen5, 0, sizeof zen5);
    strcpy(zen5.vendor, "AuthenticAMD"), zen5.family = 0x1A, zen5.model = 0x44;
    other = zen5;
    CpuInfo emr = zen5;
    strcpy(emr.vendor, "GenuineIntel"), emr.family = 6, emr.model = 207;
    strcpy(other.vendor, "SomeVendor"), other.family = 1, other.model = 1;
    const char *why = NULL;
    for (int i = 0; i < KERNEL_N_ISAS; i++) {
        GemmBlocking z = gemm_blocking_builtin(&zen5, (KernelIsa)i, &why);
        CHECK(z.mc_tiles == 24 && z.nc_tiles == 16 && z.pack_at == 0 && why && strstr(why, "Zen 5"));
        GemmBlocking o = gemm_blocking_builtin(&other, (KernelIsa)i, &why);
        CHECK(o.mc_tiles == 24 && o.nc_tiles == 16 && o.pack_at == 1 && why == NULL);
        GemmBlocking e = gemm_blocking_builtin(&emr, (KernelIsa)i, &why);  // packs dYᵀ, as measured there
        CHECK(e.mc_tiles == 24 && e.nc_tiles == 16 && e.pack_at == 1 && why && strstr(why, "Emerald Rapids"));
    }
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/lmtrain_test_blocking_%d", (int)getpid());
    mkdir(dir, 0700);
    gemm_blocking_reload(dir);  // never the user's cache
    TEST(test_bits_across_blockings);
    TEST(test_set_takes_effect);
    TEST(test_file_round_trip);
    TEST(test_file_refusals);
    TEST(test_reload);
    TEST(test_table);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return test_summary();
}
