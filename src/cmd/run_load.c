// run_load.c — checkpoint + config + data + model of one run folder.
#include "run_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"

int run_load(LoadedRun *r, const char *dir) {
    memset(r, 0, sizeof *r);
    if (strlen(dir) >= sizeof r->dir) return err_set(ERR_USAGE, "run folder name too long: %.80s...", dir);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->ckpt, sizeof r->ckpt, "%s/checkpoint.bin", dir);
    struct stat st;
    if (stat(dir, &st) != 0)
        return err_set(ERR_RUNTIME, "run folder %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return err_set(ERR_RUNTIME, "%s is not a run folder (not a folder)", dir);
    if (stat(r->ckpt, &st) != 0)
        return err_set(ERR_RUNTIME, "%s holds no checkpoint.bin (%s): train the run first "
                                    "(lmtrain --config FILE --out %s)", dir, strerror(errno), dir);

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
