// train.c — the training loop: batches, steps, evaluation, logging,
// checkpoints, signals and non-finite detection.
#include "train.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attention/decay.h"
#include "model/model.h"
#include "format/svg.h"
#include "train/checkpoint.h"
#include "train/data.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/metrics.h"
#include "train/metrics_check.h"
#include "train/optimizer.h"
#include "train/progress.h"
#include "train/run_folder.h"
#include "train/step.h"
#include "train/summary.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/mem_limit.h"
#include "util/pause.h"
#include "util/pool.h"

// ============================================================================
// Paths and folders
// ============================================================================

void run_path(char *buf, size_t cap, const char *run_dir, const char *file) {
    snprintf(buf, cap, "%s/%s", run_dir, file);
}

// Signals (interrupt.h). ablate installs the handlers once for all its runs
// and asks between runs; train_run installs them again (clearing the flag).
void train_signals_install(void) { interrupt_install(); }
int train_stop_signal(void) { return interrupt_requested(); }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Process CPU time: every thread of this process, and nothing of the other
// processes sharing the machine (so a busy neighbour leaves it unchanged).
static double cpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ============================================================================
// Non-finite values: name the first activation or gradient that went bad.
// ============================================================================

static int report_nonfinite(const Graph *g, const Model *m, long step, double loss, double norm) {
    const Node *n = tape_first_nonfinite(&g->tape);
    if (n)
        return err_set(ERR_RUNTIME,
                       "step %ld: non-finite values (loss %g); first non-finite activation: %s (op %s). "
                       "The last good checkpoint is kept; try a lower lr or grad_clip.",
                       step, loss, n->out->name, n->op->name);
    for (size_t i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        if (!tensor_is_finite(p->t.data, p->t.n))
            return err_set(ERR_RUNTIME, "step %ld: parameter %s is non-finite. The last good checkpoint "
                                        "is kept.", step, p->t.name);
        if (p->t.grad && !tensor_is_finite(p->t.grad, p->t.n))
            return err_set(ERR_RUNTIME,
                           "step %ld: non-finite gradient (norm %g); first non-finite gradient: %s. "
                           "The last good checkpoint is kept; try a lower lr or grad_clip.",
                           step, norm, p->t.name);
    }
    return err_set(ERR_RUNTIME, "step %ld: non-finite loss %g / gradient norm %g. The last good "
                                "checkpoint is kept.", step, loss, norm);
}

// ============================================================================
// Set-up checks that must pass before any file is written
// ============================================================================

static int check_memory(const Config *c, size_t V) {
    size_t need = model_estimate_bytes(c, V, (size_t)c->batch_size, (size_t)c->block_size);
    char from[1400];
    double have = memory_limit_bytes(from, sizeof from);  // a cgroup's limit, when lower than the RAM
    if (need == 0 || (have > 0 && (double)need > 0.9 * have))
        return err_set(ERR_USAGE,
                       "this model and batch need about %.1f GiB of memory, and %s allows %.1f GiB; "
                       "lower batch_size, block_size, d_model or layers",
                       need ? (double)need / 1073741824.0 : INFINITY, from, have / 1073741824.0);
    return 0;
}

// The checkpoint's configuration against the one given: model and data keys
// must match; other changes are allowed and listed.
static int check_resume_config(const Config *cfg, const char *ckpt) {
    Config old;
    int rc = checkpoint_read_config(ckpt, &old);
    if (rc) return err_wrap(rc, "--resume: ");
    char diff[2048];
    if (config_diff(&old, cfg, diff, sizeof diff, 1) > 0)
        return err_set(ERR_USAGE,
                       "--resume: the configuration differs from the checkpoint's in keys that change "
                       "the model or data: %s", diff);
    if (config_diff(&old, cfg, diff, sizeof diff, 0) > 0)
        fprintf(stderr, "lmtrain: resuming with changed settings: %s\n", diff);
    return 0;
}

// The data the checkpoint's state says it trained on against the data opened now.
static int check_resume_data(const Config *cfg, const char *ckpt, const Dataset *d, const TrainState *st) {
    if (st->vocab_hash != dataset_vocab_fingerprint(d))
        return err_set(ERR_RUNTIME, "--resume: the data's vocabulary differs from the one %s was trained on",
                       ckpt);
    if (st->data_bytes == 0 && st->data_hash == 0) {  // a version-2 checkpoint: not recorded
        fprintf(stderr, "lmtrain: note: %s predates data fingerprints, so the data cannot be checked; "
                        "its next save records them\n", ckpt);
        return 0;
    }
    DataFingerprint then = {st->data_bytes, st->data_hash};
    char why[1400];
    if (dataset_fingerprint_diff(d, cfg, then, why, sizeof why))
        return err_set(ERR_RUNTIME, "--resume: %s; a run resumes only on the data it trained on (start over "
                                    "with --overwrite, or use another --out)", why);
    return 0;
}

// What the checkpoint at step st->step says was done, against what the
// folder and the configuration hold now: a step budget below it, or a
// metrics.csv that no longer reaches the rows it had logged, is refused.
static int check_resume_progress(const Config *cfg, const char *ckpt, const char *run_dir, const TrainState *st) {
    long step = (long)st->step;
    if (step > cfg->steps)
        return err_set(ERR_USAGE, "--resume: the run is at step %ld, past train.steps = %d; a run cannot go back "
                                  "(give steps >= %ld, or start over with --overwrite)", step, cfg->steps, step);
    Config old;  // the cadence of the session that saved the checkpoint
    int rc = checkpoint_read_config(ckpt, &old);
    if (rc) return err_wrap(rc, "--resume: ");
    char path[4200];
    run_path(path, sizeof path, run_dir, "metrics.csv");
    long want = metrics_last_logged_step(step, old.log_every, old.eval_every, old.steps);
    if ((rc = metrics_check_reaches(path, want, step, "resuming would lose those rows from the log for good",
                                    "restore the file, or start over with --overwrite")))
        return err_wrap(rc, "--resume: ");
    return 0;
}

// ============================================================================
// The loop
// ============================================================================

typedef struct {
    const Config *c;
    const char *dir;
    Dataset *data;
    Model model;
    AdamW opt;
    Graph graph;
    TrainState st;
    Metrics metrics;
    Rng rng;
    double *lambda, *state_norm;  // (layers) telemetry of the last step
} Run;

static void telemetry(Run *r) {
    Model *m = &r->model;
    for (size_t l = 0; l < m->L; l++) {
        if (m->layer[l].theta) {
            double s = 0;
            for (size_t h = 0; h < m->H; h++) s += attn_lambda(m->layer[l].theta->data[h]);
            r->lambda[l] = s / (double)m->H;
        }
        r->state_norm[l] = graph_state_norm(&r->graph, m, l);
    }
}

static int save(Run *r) {
    char path[4200];
    run_path(path, sizeof path, r->dir, "checkpoint.bin");
    return checkpoint_save(path, &r->model, &r->opt, &r->st);
}

static int log_row(Run *r, double lr, double norm, double val, double acc, double tok_s) {
    MetricsRow row = {
        .step = (long)r->st.step,
        .tokens = r->st.tokens,
        .lr = lr,
        .train_loss = r->st.loss_count ? r->st.loss_sum / (double)r->st.loss_count : NAN,
        .val_loss = val,
        .val_acc = acc,
        .grad_norm = norm,
        .tokens_per_s = tok_s,
        .elapsed_s = r->st.elapsed_s,
        .cpu_s = r->st.cpu_s,
        .lambda = model_has_decay(&r->model) ? r->lambda : NULL,
        .state_norm = r->model.kind->last_state_norm ? r->state_norm : NULL,
    };
    r->st.loss_sum = 0;
    r->st.loss_count = 0;
    return metrics_write(&r->metrics, &row);
}

// A CPU budget ([train] cpu_seconds) is spent: the run ends at this step boundary.
static int budget_spent(const Run *r) { return r->c->cpu_seconds > 0 && r->st.cpu_s >= r->c->cpu_seconds; }

static int loop(Run *r, Progress *pr) {
    const Config *c = r->c;
    Model *m = &r->model;
    size_t B = (size_t)c->batch_size, T = (size_t)c->block_size;
    int recall = c->task == TASK_RECALL;
    unsigned long long tok_at_row = r->st.tokens;
    double time_at_row = r->st.elapsed_s;
    int rc;
    if (r->st.step == 0) {  // the untrained model's validation loss starts the curve
        double acc = NAN, val = evaluate(&r->graph, m, r->data, c, recall ? &acc : NULL);
        telemetry(r);
        if ((rc = log_row(r, NAN, NAN, val, acc, NAN))) return rc;
        r->st.best_val = val;
        if (!interrupt_requested()) progress_eval(pr, 0, val, acc);
    }
    while (r->st.step < (uint64_t)c->steps && !budget_spent(r)) {
        long step = (long)r->st.step;
        double t0 = now_s(), c0 = cpu_now_s();
        dataset_batch(r->data, SPLIT_TRAIN, &r->rng, B, T, r->graph.tokens, r->graph.targets);
        r->st.batch_hash = batch_hash_update(r->st.batch_hash, r->graph.tokens, r->graph.targets, B * T);
        StepStats ss;
        if (!train_step(&r->graph, m, &r->opt, step, &ss))
            return report_nonfinite(&r->graph, m, step + 1, ss.loss, ss.grad_norm);
        double loss = ss.loss, norm = ss.grad_norm, lr = ss.lr;
        r->st.step++;
        r->st.tokens += B * T;
        r->st.loss_sum += loss;
        r->st.loss_count++;
        r->st.rng = r->rng.s;
        // training steps only, as elapsed_s: evaluation is measurement, not training compute
        r->st.cpu_s += cpu_now_s() - c0;
        r->st.elapsed_s += now_s() - t0;
        long done = (long)r->st.step;
        int last = done == c->steps || budget_spent(r);
        int is_eval = done % c->eval_every == 0 || last;
        int is_log = is_eval || done % c->log_every == 0;
        if (is_log) {
            telemetry(r);  // before eval: the state norms of this training batch
            double val = NAN, acc = NAN;
            if (is_eval) {
                val = evaluate(&r->graph, m, r->data, c, recall ? &acc : NULL);  // NaN if interrupted
                if (!isnan(val) && (isnan(r->st.best_val) || val < r->st.best_val)) {
                    r->st.best_val = val;
                    r->st.best_step = (uint64_t)done;
                }
            }
            double dt = r->st.elapsed_s - time_at_row;
            double tok_s = dt > 0 ? (double)(r->st.tokens - tok_at_row) / dt : NAN;
            tok_at_row = r->st.tokens;
            time_at_row = r->st.elapsed_s;
            if ((rc = log_row(r, lr, norm, val, acc, tok_s))) return rc;
            if (is_eval && !isnan(val)) progress_eval(pr, done, val, acc);
        }
        progress_step(pr, done, loss, r->st.tokens, r->st.elapsed_s);
        pause_point("step", NULL);
        int sig = interrupt_requested();
        if (done % c->checkpoint_every == 0 || last || sig || pr->err)
            if ((rc = save(r))) return rc;
        if (sig) {
            progress_done(pr);
            fprintf(stderr, "lmtrain: stopped by %s after step %ld; checkpoint saved, continue with "
                            "--resume\n", interrupt_name(sig), done);
            return 128 + sig;
        }
        if (pr->err) {  // stdout is gone (`| head`, a closed terminal): stop rather than work unseen
            fprintf(stderr, "lmtrain: cannot write to stdout (%s); stopped after step %ld, checkpoint saved, "
                            "continue with --resume\n", strerror(pr->err), done);
            if (pr->err == EPIPE) return 128 + SIGPIPE;
            return err_set(ERR_RUNTIME, "stdout: %s (checkpoint saved after step %ld)", strerror(pr->err), done);
        }
    }
    progress_done(pr);
    return 0;
}

// Identity of a file, to notice that it changed between two moments.
static int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int train_run(const Config *cfg, const char *run_dir, int mode_arg) {
    TrainMode mode = (TrainMode)mode_arg;
    int resume = mode == TRAIN_RESUME;
    Run r;
    memset(&r, 0, sizeof r);
    r.c = cfg;
    r.dir = run_dir;
    pool_init(cfg->threads);
    char path[4200], ckpt[4200];
    run_path(ckpt, sizeof ckpt, run_dir, "checkpoint.bin");
    DirLock lock = {.fd = -1};
    struct stat ck_seen, ck_now;
    train_signals_install();  // a stop request from here on is answered (below: before anything is written)

    // Everything that can be refused is checked before the run folder is
    // touched: config (by the caller), data, memory, the folder, the checkpoint.
    int rc = dataset_open(cfg, &r.data);
    if (rc) return rc;
    size_t V = (size_t)dataset_vocab_size(r.data);
    if ((rc = check_memory(cfg, V)) || (rc = run_folder_check(run_dir, mode))) goto out_data;
    if (resume && (rc = check_resume_config(cfg, ckpt))) goto out_data;

    model_build(&r.model, cfg, V);
    adamw_init(&r.opt, &r.model);
    graph_build_prec(&r.graph, &r.model, (size_t)cfg->batch_size, (size_t)cfg->block_size, cfg->precision);
    r.lambda = xcalloc(r.model.L, sizeof(double));
    r.state_norm = xcalloc(r.model.L, sizeof(double));
    r.st.best_val = NAN;
    rng_seed(&r.rng, cfg->seed);
    if (resume) {
        if (stat(ckpt, &ck_seen) != 0) memset(&ck_seen, 0, sizeof ck_seen);
        if ((rc = checkpoint_load(ckpt, &r.model, &r.opt, &r.st)) ||
            (rc = check_resume_data(cfg, ckpt, r.data, &r.st)) ||
            (rc = check_resume_progress(cfg, ckpt, run_dir, &r.st)))
            goto out;
    }

    // Now the folder: created, locked, checked again under the lock.
    if ((rc = interrupt_requested())) {
        fprintf(stderr, "lmtrain: stopped by %s before training started; nothing was written\n",
                interrupt_name(rc));
        rc += 128;
        goto out;
    }
    if ((rc = run_folder_claim(&lock, run_dir, mode))) goto out;
    pause_point("lock", NULL);
    if (resume && (stat(ckpt, &ck_now) != 0 || !same_file(&ck_seen, &ck_now))) {
        // another writer saved between our read and our lock: continue from its checkpoint
        if ((rc = checkpoint_load(ckpt, &r.model, &r.opt, &r.st)) ||
            (rc = check_resume_data(cfg, ckpt, r.data, &r.st)) ||
            (rc = check_resume_progress(cfg, ckpt, run_dir, &r.st)))
            goto out;
    }
    if (resume) r.rng.s = r.st.rng;
    r.st.vocab_hash = dataset_vocab_fingerprint(r.data);
    DataFingerprint fp = dataset_fingerprint(r.data);
    r.st.data_bytes = fp.bytes;
    r.st.data_hash = fp.hash;
    run_path(path, sizeof path, run_dir, "summary.txt");
    unlink(path);  // a folder without summary.txt is a run that has not finished

    run_path(path, sizeof path, run_dir, "config.ini");
    AtomicFile af;
    if ((rc = atomic_open(&af, path))) goto out;
    config_write(cfg, af.f);
    if ((rc = atomic_commit(&af))) goto out;

    run_path(path, sizeof path, run_dir, "metrics.csv");
    rc = metrics_open(&r.metrics, path, (int)r.model.L, model_has_decay(&r.model),
                      r.model.kind->last_state_norm != NULL, cfg->task == TASK_RECALL, resume,
                      (long)r.st.step);
    if (rc) goto out;
    Progress pr;
    progress_start(&pr, cfg, r.model.n_weights, (long)r.st.step);
    rc = loop(&r, &pr);
    int rc2 = metrics_close(&r.metrics);
    if (!rc) rc = rc2;
    if (!rc) rc = write_run_outputs(run_dir, &r.model, &r.st);
out:
    dir_lock_release(&lock);
    free(r.lambda);
    free(r.state_norm);
    graph_free(&r.graph);
    adamw_free(&r.opt);
    model_free(&r.model);
out_data:
    dataset_free(r.data);
    return rc;
}
