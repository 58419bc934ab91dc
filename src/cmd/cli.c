// cli.c — config lookup and run-folder naming for every command.
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kernels/bf16.h"
#include "util/err.h"
#include "util/file_check.h"

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int cli_load_config(Config *c, const char *name, const char *const *sets, int n_sets) {
    char path[4096];
    snprintf(path, sizeof path, "%s", name);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))  // a FIFO would block the read, a device never end
        return err_set(ERR_USAGE, "cannot open config %s: it is %s; lmtrain reads only regular files", path,
                       file_kind(st.st_mode));
    if (!is_file(path)) {
        snprintf(path, sizeof path, "configs/%s", name);
        if (!is_file(path)) snprintf(path, sizeof path, "configs/%s.ini", name);
        if (!is_file(path))
            return err_set(ERR_USAGE, "config '%s' not found (looked for %s, configs/%s and configs/%s.ini)",
                           name, name, name, name);
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
