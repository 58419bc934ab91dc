// run_load.c — checkpoint + config + data + model of one run folder.
#include "run_load.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

// The sub-folders of dir that hold a checkpoint.bin ("seed1337/, seed1338/"),
// sorted, into buf; how many. An ablation keeps each config's runs in seedN/.
static int runs_below(const char *dir, char *buf, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    char names[16][256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 16;) {
        char p[4400];
        struct stat st;
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof names[0]) continue;
        snprintf(p, sizeof p, "%s/%s/checkpoint.bin", dir, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s/", i ? ", " : "", names[i]);
    }
    return n;
}

int run_load(LoadedRun *r, const char *dir) {
    memset(r, 0, sizeof *r);
    if (strlen(dir) >= sizeof r->dir) return err_set(ERR_USAGE, "run folder name too long: %.80s...", dir);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->ckpt, sizeof r->ckpt, "%s/checkpoint.bin", dir);
    struct stat st;
    if (stat(dir, &st) != 0)
        return err_set(ERR_RUNTIME, "run folder %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return err_set(ERR_RUNTIME, "%s is not a run folder (not a folder)", dir);
    if (stat(r->ckpt, &st) != 0) {
        int e = errno;
        char runs[1024];
        if (runs_below(dir, runs, sizeof runs))  // an ablation's config folder: its runs are one level down
            return err_set(ERR_RUNTIME, "%s holds no checkpoint.bin, but its folders %s do: each is one run "
                                        "(--run %s/%s)", dir, runs, dir, runs);
        return err_set(ERR_RUNTIME, "%s holds no checkpoint.bin (%s): train the run first "
                                    "(lmtrain --config FILE --out %s)", dir, strerror(e), dir);
    }

    // checkpoint errors already name the file
    int rc = checkpoint_read_config(r->ckpt, &r->cfg);
    if (rc) return rc;
    if ((rc = dataset_open(&r->cfg, &r->data)))
        return err_wrap(ERR_RUNTIME, "the data of run %s (paths are relative to where it was trained): ",
                        dir);
    model_build(&r->model, &r->cfg, (size_t)dataset_vocab_size(r->data));
    if ((rc = checkpoint_load(r->ckpt, &r->model, NULL, &r->st))) goto fail;
    if (r->st.vocab_hash != dataset_vocab_fingerprint(r->data)) {
        rc = err_set(ERR_RUNTIME, "%s: the data (%s) no longer has the vocabulary the run was trained "
                                  "on; was the file changed?", dir,
                     r->cfg.task == TASK_TEXT ? r->cfg.path : "recall task");
        goto fail;
    }
    return 0;
fail:
    run_unload(r);
    return rc;
}

void run_unload(LoadedRun *r) {
    if (r->model.data) model_free(&r->model);
    dataset_free(r->data);
    r->data = NULL;
}
