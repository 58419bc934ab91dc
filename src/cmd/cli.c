// cli.c — config lookup and run-folder naming for every command.
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/bf16.h"
#include "util/err.h"
#include "util/file_check.h"

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

// The shipped configs of an installed lmtrain (`make install`): the folder
// share/lmtrain/configs beside the binary's bin/ (so a DESTDIR staging or a
// moved tree works), and the PREFIX compiled in (the Makefile's PREFIX).
#ifndef LMTRAIN_SHARE_CONFIGS
#define LMTRAIN_SHARE_CONFIGS "/usr/local/share/lmtrain/configs"
#endif
const char *cli_share_configs(void) { return LMTRAIN_SHARE_CONFIGS; }

static void exe_share_configs(char *buf, size_t cap) {
    buf[0] = 0;
    char exe[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');  // .../bin/lmtrain -> .../bin
    if (!slash) return;
    *slash = 0;
    slash = strrchr(exe, '/');  // .../bin -> ...
    if (!slash || strcmp(slash, "/bin") != 0) return;
    *slash = 0;
    snprintf(buf, cap, "%s/share/lmtrain/configs", exe);
}

// NAME, then NAME.ini, in folder dir: 1 with the path in path when found
static int find_in(char *path, size_t cap, const char *dir, const char *name) {
    if (!dir[0]) return 0;
    snprintf(path, cap, "%s/%s", dir, name);
    if (is_file(path)) return 1;
    snprintf(path, cap, "%s/%s.ini", dir, name);
    return is_file(path);
}

int cli_load_config(Config *c, const char *name, const char *const *sets, int n_sets) {
    char path[4096];
    snprintf(path, sizeof path, "%s", name);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))  // a FIFO would block the read, a device never end
        return err_set(ERR_USAGE, "cannot open config %s: it is %s; lmtrain reads only regular files", path,
                       file_kind(st.st_mode));
    if (!is_file(path)) {
        char beside[4096];
        exe_share_configs(beside, sizeof beside);
        if (!find_in(path, sizeof path, "configs", name) && !find_in(path, sizeof path, beside, name) &&
            !find_in(path, sizeof path, LMTRAIN_SHARE_CONFIGS, name))
            return err_set(ERR_USAGE,
                           "config '%s' not found (looked for %s, then %s and %s.ini in configs/%s%s and %s)", name,
                           name, name, name, beside[0] ? ", " : "", beside, LMTRAIN_SHARE_CONFIGS);
    }
    config_defaults(c);
    int rc = config_load_all(c, path, sets, n_sets);
    if (rc) return rc;
    // A training setting this machine cannot run: refused before anything is
    // written. (Not in config validation: a bf16 run's folder still loads for
    // eval, sample and inspect, which compute in fp32, on any CPU.)
    const char *missing = c->precision == PRECISION_BF16 ? bf16_cpu_missing() : NULL;
    if (missing)
        return err_set(ERR_USAGE, "%s: [train] precision = bf16 needs a CPU with AVX-512 BF16 (vdpbf16ps), "
                                  "and %s; use precision = fp32", path, missing);
    return 0;
}

void cli_run_dir(char *buf, size_t cap, const Config *c, const char *out) {
    if (out) snprintf(buf, cap, "%s", out);
    else snprintf(buf, cap, "%s/%s", c->out_dir, c->name);
}
