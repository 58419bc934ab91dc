// data_check.c — see data_check.h.
#include "data_check.h"

#include <stdio.h>

#include "train/checkpoint.h"
#include "train/data.h"
#include "util/err.h"

int checkpoint_data_check(const char *ckpt, const Config *c) {
    TrainState st;
    int rc = checkpoint_read_state(ckpt, &st);
    if (rc) return rc;
    if (st.data_bytes == 0 && st.data_hash == 0) return 0;  // a version-2 checkpoint: not recorded
    Dataset *d = NULL;
    if ((rc = dataset_open(c, &d))) return rc;
    char why[1400];
    DataFingerprint then = {st.data_bytes, st.data_hash};
    if (st.vocab_hash != dataset_vocab_fingerprint(d))
        rc = err_set(ERR_RUNTIME, "the data's vocabulary differs from the one %s was trained on", ckpt);
    else if (dataset_fingerprint_diff(d, c, then, why, sizeof why))
        rc = err_set(ERR_RUNTIME, "%s: %s", ckpt, why);
    dataset_free(d);
    return rc;
}
