// blocking_file.c — the tuning file of blocking.h: where it lives, reading it
// strictly (anything unexpected makes it unusable, never half-used), writing it.
//
//   lmtrain gemm blocking 1
//   cpu GenuineIntel 6 207
//   avx512 24 16 1
//   avx2 24 16 1
//
// One line per path measured: the path, MC and NC in register tiles, and 1
// when dYᵀ is packed for the weights' gradients, 0 when read in place
// (blocking.h). A line without the fourth number (the files of lmtrain before
// it) keeps the table's choice for it.
#include "kernels/blocking.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"

#define MAGIC "lmtrain gemm blocking 1"

static void cache_folder(const char *cache_dir, char *out, size_t n) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache_dir)
        snprintf(out, n, "%s", cache_dir);
    else if (xdg && xdg[0] == '/')  // the XDG spec: a relative value is to be ignored
        snprintf(out, n, "%s/lmtrain", xdg);
    else if (home && *home)
        snprintf(out, n, "%s/.cache/lmtrain", home);
    else
        out[0] = 0;
}

int blocking_file_path(const CpuInfo *cpu, const char *cache_dir, char *out, size_t n) {
    char dir[400];
    cache_folder(cache_dir, dir, sizeof dir);
    if (!dir[0]) return -1;
    snprintf(out, n, "%s/gemm-%s-%d-%d.txt", dir, cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family,
             cpu->model);
    return 0;
}

// next line of f without its newline into line; 0 at the end, -1 if too long
static int next_line(FILE *f, char *line, size_t n) {
    if (!fgets(line, (int)n, f)) return 0;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
        line[--len] = 0;
    else if (!feof(f))
        return -1;
    return 1;
}

int blocking_file_read(const char *path, const CpuInfo *cpu, GemmBlocking b[KERNEL_N_ISAS], char *why,
                       size_t whylen) {
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file");
        return -1;
    }
    if (st.st_size > 4096) {
        snprintf(why, whylen, "%lld bytes: too long for a tuning file", (long long)st.st_size);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    GemmBlocking got[KERNEL_N_ISAS];
    memcpy(got, b, sizeof got);
    char line[256], vendor[64];
    int r = -1, lineno = 1, fam, mod, end;
    if (next_line(f, line, sizeof line) != 1 || strcmp(line, MAGIC) != 0) {
        snprintf(why, whylen, "line 1: not \"" MAGIC "\"");
        goto done;
    }
    lineno++;
    if (next_line(f, line, sizeof line) != 1 || sscanf(line, "cpu %63s %d %d%n", vendor, &fam, &mod, &end) != 3 ||
        line[end]) {
        snprintf(why, whylen, "line 2: not \"cpu VENDOR FAMILY MODEL\"");
        goto done;
    }
    if (strcmp(vendor, cpu->vendor[0] ? cpu->vendor : "unknown") || fam != cpu->family || mod != cpu->model) {
        snprintf(why, whylen, "made on another CPU: %s family %d model %d, this is %s family %d model %d", vendor,
                 fam, mod, cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family, cpu->model);
        goto done;
    }
    int seen[KERNEL_N_ISAS] = {0}, k;
    while (lineno++, (k = next_line(f, line, sizeof line)) == 1) {
        char isa[32];
        int mc, nc, at = 0, has_at = 1, i;
        if ((sscanf(line, "%31s %d %d %d%n", isa, &mc, &nc, &at, &end) != 4 || line[end]) &&
            (has_at = 0, sscanf(line, "%31s %d %d%n", isa, &mc, &nc, &end) != 3 || line[end])) {
            snprintf(why, whylen, "line %d: not \"PATH MC_TILES NC_TILES [PACK_AT]\"", lineno);
            goto done;
        }
        for (i = 0; i < KERNEL_N_ISAS && strcmp(isa, kernel_isa_name((KernelIsa)i)); i++) {}
        if (i == KERNEL_N_ISAS || seen[i]) {
            snprintf(why, whylen, "line %d: %s path '%s'", lineno, i == KERNEL_N_ISAS ? "unknown" : "a second line for",
                     isa);
            goto done;
        }
        if (mc < BLOCKING_MIN_TILES || mc > BLOCKING_MAX_MC_TILES || nc < BLOCKING_MIN_TILES ||
            nc > BLOCKING_MAX_NC_TILES) {
            snprintf(why, whylen, "line %d: mc %d, nc %d outside %d..%d, %d..%d", lineno, mc, nc, BLOCKING_MIN_TILES,
                     BLOCKING_MAX_MC_TILES, BLOCKING_MIN_TILES, BLOCKING_MAX_NC_TILES);
            goto done;
        }
        if (has_at && at != 0 && at != 1) {
            snprintf(why, whylen, "line %d: PACK_AT %d is neither 0 nor 1", lineno, at);
            goto done;
        }
        seen[i] = 1;
        got[i] = (GemmBlocking){mc, nc, has_at ? at : got[i].pack_at};
    }
    if (k < 0 || ferror(f)) {
        snprintf(why, whylen, "line %d: %s", lineno, k < 0 ? "too long" : "read error");
        goto done;
    }
    memcpy(b, got, sizeof got);
    r = 1;
done:
    fclose(f);
    return r;
}

int blocking_file_write(const char *path, const CpuInfo *cpu, const GemmBlocking b[KERNEL_N_ISAS],
                        const int have[KERNEL_N_ISAS]) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        int rc = make_dirs(dir);
        if (rc) return rc;
    }
    AtomicFile a;
    if (atomic_open(&a, path)) return ERR_RUNTIME;
    fprintf(a.f, MAGIC "\ncpu %s %d %d\n", cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family, cpu->model);
    for (int i = KERNEL_N_ISAS - 1; i >= 0; i--)
        if (have[i])
            fprintf(a.f, "%s %d %d %d\n", kernel_isa_name((KernelIsa)i), b[i].mc_tiles, b[i].nc_tiles, b[i].pack_at);
    return atomic_commit(&a);
}
