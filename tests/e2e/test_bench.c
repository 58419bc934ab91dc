// test_bench.c — `lmtrain bench` end to end: the files each part writes, their
// rows and columns, and the usage errors. No timing is asserted (the machine
// is shared); only that the numbers exist and are positive where they must be.
#include <math.h>

#include "../test.h"
#include "attention/attention.h"
#include "kernels/cpu.h"
#include "kernels/matvec_i8.h"
#include "e2e.h"

// Lines of a text file (0 if it cannot be read).
static int count_lines(const char *text) {
    int n = 0;
    for (const char *p = text; p && *p; p++) n += *p == '\n';
    return n;
}

static void test_length_part(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench");
    // no time limit per point: a loaded machine (or a sanitizer build) must not skip one
    char *argv[] = {"bench", "--quick", "--part", "length", "--seq", "128,64", "--max-point-seconds", "1e6",
                    "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "crossover (wall time) linear_decay vs softmax") != NULL);
    CHECK(strstr(e2e_out, "crossover (CPU time) linear vs softmax") != NULL);

    snprintf(p, sizeof p, "%s/cost_vs_length.csv", out);
    char *csv = read_all(p, NULL);
    CHECK(csv != NULL);
    if (csv) {
        const char *hdr = "kind,seq_len,status,reps,step_s_median,step_s_min,step_s_max,us_per_token,"
                          "tokens_per_s,gflops,cpu_share,cpu_us_per_token,peak_rss_bytes,alloc_bytes,note\n";
        CHECK(!strncmp(csv, hdr, strlen(hdr)));
        // the default --kinds: every registered kind, each at each length, sorted
        int n_kinds = 0;
        while (attn_kinds[n_kinds]) n_kinds++;
        CHECK(n_kinds >= 4);  // softmax, linear, linear_decay, delta at least
        CHECK(count_lines(csv) == 1 + n_kinds * 2);
        const char *prev = csv;
        for (int i = 0; i < 2 * n_kinds; i++) {
            char row[64];
            snprintf(row, sizeof row, "\n%s,%d,ok,", attn_kinds[i / 2]->name, i % 2 ? 128 : 64);
            const char *r = strstr(csv, row);
            CHECK(r != NULL && r > prev);
            if (!r) continue;
            prev = r;
            r++;
            double reps = csv_field(r, 3), med = csv_field(r, 4), lo = csv_field(r, 5), hi = csv_field(r, 6);
            double us = csv_field(r, 7), cpu_us = csv_field(r, 11), rss = csv_field(r, 12), alloc = csv_field(r, 13);
            CHECK(reps >= 1);
            CHECK(med > 0 && lo <= med && med <= hi);
            CHECK(us > 0 && cpu_us > 0);
            // the child's whole resident set includes the model and graph it allocated
            CHECK(alloc > 1e6 && rss > alloc);
        }
        // model+graph grows with N at fixed parameters (pos = none)
        const char *a = strstr(csv, "\nsoftmax,64,"), *b = strstr(csv, "\nsoftmax,128,");
        if (a && b) CHECK(csv_field(b + 1, 13) > csv_field(a + 1, 13));
    }
    free(csv);

    snprintf(p, sizeof p, "%s/cost_vs_length.svg", out);
    char *svg = read_all(p, NULL);
    CHECK(svg && strstr(svg, "<svg") && strstr(svg, "</svg>") && strstr(svg, "linear_decay wall") &&
          strstr(svg, "per token"));
    free(svg);
    snprintf(p, sizeof p, "%s/memory_vs_length.svg", out);
    svg = read_all(p, NULL);
    CHECK(svg && strstr(svg, "<svg") && strstr(svg, "softmax RSS") && strstr(svg, "linear alloc"));
    free(svg);
    // only the part asked for
    snprintf(p, sizeof p, "%s/peak.csv", out);
    CHECK(!file_exists(p));
    snprintf(p, sizeof p, "%s/throughput.csv", out);
    CHECK(!file_exists(p));
}

static void test_peak_and_generate_parts(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench2");
    char *argv[] = {"bench", "--quick", "--part", "peak,generate", "--kinds", "linear", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(p, sizeof p, "%s/peak.csv", out);
    char *csv = read_all(p, NULL);
    const char *hdr = "isa,threads,gflops_cpu_time,gflops_wall\n";
    CHECK(csv && !strncmp(csv, hdr, strlen(hdr)) && count_lines(csv) == 3);
    const char *one = csv ? strstr(csv, ",1,") : NULL;
    CHECK(one != NULL);
    if (one) {
        const char *line = one;
        while (line > csv && line[-1] != '\n') line--;
        CHECK(csv_field(line, 2) > 0 && csv_field(line, 3) > 0);
    }
    free(csv);
    snprintf(p, sizeof p, "%s/generate.csv", out);
    csv = read_all(p, NULL);
    hdr = "kind,weights,position,reps,us_per_token,tokens_per_s,cpu_share,cpu_us_per_token,state_bytes,bytes_per_token,"
          "gbs_cpu,ref_gbs,pct_of_ref,how\n";
    CHECK(csv && !strncmp(csv, hdr, strlen(hdr)));
    CHECK(csv && count_lines(csv) == 7);
    const char *r64 = csv ? strstr(csv, "\nlinear,fp32,64,") : NULL, *rfar = csv ? strstr(csv, "\nlinear,fp32,16384,") : NULL;
    const char *b64 = csv ? strstr(csv, "\nlinear,bf16,64,") : NULL, *i64 = csv ? strstr(csv, "\nlinear,int8,64,") : NULL;
    CHECK(r64 && rfar && b64 && i64);
    // bf16 weights: half the bytes of the weights, the same state; int8 a quarter
    if (r64 && b64)
        CHECK(csv_field(b64 + 1, 9) - csv_field(b64 + 1, 8) ==
              (csv_field(r64 + 1, 9) - csv_field(r64 + 1, 8)) / 2);
    if (r64 && i64 && !matvec_i8_cpu_missing())
        CHECK(csv_field(i64 + 1, 9) - csv_field(i64 + 1, 8) ==
              (csv_field(r64 + 1, 9) - csv_field(r64 + 1, 8)) / 4);
    if (i64 && matvec_i8_cpu_missing()) CHECK(strstr(i64, ",skipped\n") != NULL);
    if (r64 && rfar) {
        CHECK(csv_field(r64 + 1, 4) > 0 && csv_field(rfar + 1, 4) > 0);
        CHECK(csv_field(r64 + 1, 7) > 0 && csv_field(rfar + 1, 7) > 0);
        // a fast-weight state does not grow with the position
        CHECK(csv_field(r64 + 1, 8) > 0 && csv_field(r64 + 1, 8) == csv_field(rfar + 1, 8));
        // bytes read per token: at least the state, plus the weights; and their rate
        CHECK(csv_field(r64 + 1, 9) > csv_field(r64 + 1, 8) && csv_field(rfar + 1, 10) > 0);
        // at 16384 the bandwidth reference (a sum of as many bytes, interleaved
        // with the bursts) and the burst's rate as a percentage of it
        double gbs = csv_field(rfar + 1, 10), ref = csv_field(rfar + 1, 11), pct = csv_field(rfar + 1, 12);
        CHECK(ref > 0 && pct > 0 && fabs(pct - 100.0 * gbs / ref) <= 0.05 + 1e-3 * pct);
    }
    free(csv);
}

// Without AVX-512 VNNI (simulated) the int8 rows say so: the part runs, its
// fp32 and bf16 rows are measured, and int8's two rows are marked skipped.
static void test_generate_int8_skipped_without_vnni(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench_novnni");
    setenv("LMTRAIN_CPU_NO_VNNI", "1", 1);
    char *argv[] = {"bench", "--quick", "--part", "generate", "--kinds", "linear", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    unsetenv("LMTRAIN_CPU_NO_VNNI");
    CHECK(rc == 0 && strstr(e2e_out, "int8 rows skipped") && strstr(e2e_out, "skipped: this CPU has no AVX-512 VNNI"));
    snprintf(p, sizeof p, "%s/generate.csv", out);
    char *csv = read_all(p, NULL);
    CHECK(csv && count_lines(csv) == 7);
    CHECK(csv && strstr(csv, "\nlinear,int8,64,,,,,,,,,,,skipped\n") && strstr(csv, "\nlinear,int8,16384,,,,,,,,,,,skipped\n"));
    const char *b64 = csv ? strstr(csv, "\nlinear,bf16,64,") : NULL;
    CHECK(b64 && csv_field(b64 + 1, 4) > 0);
    free(csv);
}

// Part "profile": one row per op role and direction, FLOP rates where the op
// multiplies, byte rates where it is element-wise, and the CPU shares adding
// up to the whole step. Also the memory bandwidth the peak part now measures.
static void test_profile_part(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench3");
    char *argv[] = {"bench", "--quick", "--part", "profile", "--kinds", "linear", "--sizes", "baby", "--threads", "1",
                    "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "memory read bandwidth") != NULL);
    snprintf(p, sizeof p, "%s/profile.csv", out);
    char *csv = read_all(p, NULL);
    const char *hdr = "config,kind,threads,op,direction,cpu_ms_per_step,pct_of_step_cpu,wall_ms_per_step,"
                      "pool_wait_ms,flops_per_step,bytes_per_step,gflops,pct_busy,gbs,pct_of_membw,precision\n";
    CHECK(csv && !strncmp(csv, hdr, strlen(hdr)));
    // every role of the baby model, both directions, plus the step's other parts
    const char *flop_rows[] = {"\nbaby,linear,1,attn.qkv,fwd,", "\nbaby,linear,1,attn,fwd,", "\nbaby,linear,1,attn,bwd,",
                               "\nbaby,linear,1,mlp.proj+residual,bwd,", "\nbaby,linear,1,logits,fwd,"};
    const char *byte_rows[] = {"\nbaby,linear,1,ln_1,fwd,", "\nbaby,linear,1,mlp.gelu,bwd,", "\nbaby,linear,1,loss,fwd,",
                               "\nbaby,linear,1,AdamW,step,", "\nbaby,linear,1,zero act grads,bwd,"};
    for (int i = 0; csv && i < 5; i++) {
        const char *r = strstr(csv, flop_rows[i]);
        CHECK(r != NULL);
        if (r) CHECK(csv_field(r + 1, 9) > 0 && csv_field(r + 1, 11) > 0 && csv_field(r + 1, 5) > 0);
        r = strstr(csv, byte_rows[i]);
        CHECK(r != NULL);
        if (r) CHECK(csv_field(r + 1, 10) > 0 && csv_field(r + 1, 13) > 0 && isnan(csv_field(r + 1, 11)));
    }
    // the backward of a matmul does twice the forward's multiplies
    const char *f = csv ? strstr(csv, "\nbaby,linear,1,mlp.fc,fwd,") : NULL;
    const char *b = csv ? strstr(csv, "\nbaby,linear,1,mlp.fc,bwd,") : NULL;
    CHECK(f && b);
    if (f && b) CHECK(csv_field(b + 1, 9) == 2 * csv_field(f + 1, 9));
    // the op rows and "between ops" add up to the whole step's CPU time; the
    // same steps unclocked (as training runs them) are a row of their own,
    // with the whole step's FLOPs
    double sum = 0, whole = NAN, whole_flops = NAN, trained = NAN, trained_flops = NAN;
    for (const char *r = csv ? strchr(csv, '\n') : NULL; r && r[1]; r = strchr(r + 1, '\n')) {
        if (!strncmp(r + 1, "baby,linear,1,whole step,", 25)) {
            whole = csv_field(r + 1, 5);
            whole_flops = csv_field(r + 1, 9);
        } else if (!strncmp(r + 1, "baby,linear,1,step as trained,", 30)) {
            trained = csv_field(r + 1, 5);
            trained_flops = csv_field(r + 1, 9);
        } else {
            sum += csv_field(r + 1, 5);
        }
    }
    CHECK(whole > 0 && fabs(sum - whole) <= 1e-3 * whole);
    CHECK(trained > 0 && trained_flops > 0 && trained_flops == whole_flops);
    // ... over as many steps as were profiled
    int profiled = -1, as_trained = -2;
    const char *pl = strstr(e2e_out, " steps profiled"), *tl = strstr(e2e_out, "  as trained (sharded passes, no clocks; ");
    while (pl && pl > e2e_out && pl[-1] >= '0' && pl[-1] <= '9') pl--;
    if (pl) profiled = atoi(pl);
    if (tl) as_trained = atoi(tl + strlen("  as trained (sharded passes, no clocks; "));
    CHECK(profiled > 0 && as_trained == profiled);
    free(csv);
    snprintf(p, sizeof p, "%s/membw.csv", out);
    csv = read_all(p, NULL);
    CHECK(csv && !strncmp(csv, "threads,bytes,read_gbs\n1,", 25) && csv_field(strchr(csv, '\n') + 1, 2) > 0);
    // and from cache: a second, smaller buffer
    CHECK(csv && count_lines(csv) == 3);
    if (csv && count_lines(csv) == 3) {
        const char *row2 = strchr(strchr(csv, '\n') + 1, '\n') + 1;
        CHECK(csv_field(row2, 1) == 8388608 && csv_field(row2, 2) > 0);
    }
    free(csv);
}

// Part products: 6 layers x 3 products, each row's shape as bench_layers.c
// has it and its GFLOP/s and % busy positive and consistent with the peak
// the run printed; the path is the one the process runs.
static void test_products_part(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench_products");
    char *argv[] = {"bench", "--quick", "--part", "products", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "== Products: ") != NULL);
    snprintf(p, sizeof p, "%s/products.csv", out);
    char *csv = read_all(p, NULL);
    const char *hdr = "path,model,layer,tokens,in,out,product,gflops,pct_busy\n";
    CHECK(csv && !strncmp(csv, hdr, strlen(hdr)));
    CHECK(csv && count_lines(csv) == 1 + 6 * 3);
    snprintf(p, sizeof p, "%s/peak.csv", out);
    char *peak = read_all(p, NULL);
    const char *p1 = peak ? strstr(peak, "\n") : NULL;  // "isa,1,gflops_cpu_time,..."
    double peak1 = p1 ? csv_field(p1 + 1, 2) : NAN;
    CHECK(peak1 > 0);
    const char *rows[] = {"baby,qkv,768,128,384,forward,", "baby,ffn down,768,512,128,dW,",
                          "large,ffn up,2048,384,1536,dX,"};
    for (int i = 0; csv && i < 3; i++) {
        const char *r = strstr(csv, rows[i]);
        CHECK(r != NULL);
        if (!r) continue;
        while (r > csv && r[-1] != '\n') r--;  // the row's start: its path
        CHECK(!strncmp(r, kernel_isa_name(kernel_isa()), strlen(kernel_isa_name(kernel_isa()))));
        double gf = csv_field(r, 7), busy = csv_field(r, 8);
        CHECK(gf > 0 && busy > 0 && fabs(busy - 100.0 * gf / peak1) < 0.01 + 1e-3 * busy);
    }
    free(csv), free(peak);
    // --rounds sets its rounds (blas_anchor.py runs one at a time, alternating with the BLAS's)
    CHECK(strstr(e2e_out, "median of 1 rounds") != NULL);  // --quick's default
    char *argv2[] = {"bench", "--quick", "--part", "products", "--rounds", "2", "--out", out, NULL};
    CHECK(run_lmtrain(argv2) == 0);
    CHECK(strstr(e2e_out, "median of 2 rounds") != NULL);
}

// The CSV line of `kind` in a file whose rows start "kind," after `lead`
// (e.g. "baby,"), or NULL.
static const char *row_of(const char *csv, const char *lead, const char *kind) {
    char key[128];
    snprintf(key, sizeof key, "\n%s%s,", lead, kind);
    const char *r = csv ? strstr(csv, key) : NULL;
    return r ? r + 1 : NULL;
}

// Every part (train, length, generate, profile) for every registered kind,
// and again for the variants the gated kinds add: decay = data, L2 keys and
// delta's WY form (head size 64 from --set model.heads=2). Each kind gets its
// rows, with positive numbers where a measurement must be, attention FLOPs
// counted (AttnKind.flops), and the sizes as --set left them.
static void test_every_part_every_kind(void) {
    char kinds[256] = "";
    for (int k = 0; attn_kinds[k]; k++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? "," : "", attn_kinds[k]->name);
    const struct {
        const char *name, *kinds, *set1, *set2;
        const char *heads;  // the throughput.csv row's layers,heads,d_model
    } runs[] = {
        {"bench_all", kinds, "run.seed=1", "run.seed=1", ",4,4,128,"},
        {"bench_variants", "linear_decay,delta", "attention.decay=data", "model.heads=2", ",4,2,128,"},
    };
    for (size_t v = 0; v < 2; v++) {
        char out[512], p[600];
        tpath(out, sizeof out, runs[v].name);
        char *argv[] = {"bench", "--quick", "--part", "train,length,generate,profile", "--kinds", (char *)runs[v].kinds,
                        "--sizes", "baby", "--seq", "64", "--threads", "1", "--set", (char *)runs[v].set1, "--set",
                        (char *)runs[v].set2, "--set", "attention.key_norm=l2", "--max-point-seconds", "1e6",
                        "--out", out, NULL};
        int rc = run_lmtrain(argv);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s\n", e2e_out);
        // the rows say only the kind: the header says what --set changed
        char sets[256];
        snprintf(sets, sizeof sets, "every model with: %s, %s, attention.key_norm=l2\n", runs[v].set1, runs[v].set2);
        CHECK(strstr(e2e_out, sets) != NULL);
        char *csv[4];
        const char *files[] = {"throughput.csv", "cost_vs_length.csv", "generate.csv", "profile.csv"};
        for (int f = 0; f < 4; f++) {
            snprintf(p, sizeof p, "%s/%s", out, files[f]);
            csv[f] = read_all(p, NULL);
            CHECK(csv[f] != NULL);
        }
        char list[256];
        snprintf(list, sizeof list, "%s", runs[v].kinds);
        for (char *kind = strtok(list, ","); kind; kind = strtok(NULL, ",")) {
            const char *t = row_of(csv[0], "baby,", kind), *l = row_of(csv[1], "", kind);
            const char *g = row_of(csv[2], "", kind), *pr = row_of(csv[3], "baby,", kind);
            CHECK(t && l && g && pr);
            if (!(t && l && g && pr)) {
                fprintf(stderr, "  %s %s: a part has no row\n", runs[v].name, kind);
                continue;
            }
            // train: tokens/s, attention FLOPs per token, the model as it ran
            CHECK(csv_field(t, 12) > 0 && csv_field(t, 14) > 0 && strstr(t, runs[v].heads) == t + strlen("baby,") + strlen(kind));
            CHECK(!strncmp(l + strlen(kind), ",64,ok,", 7) && csv_field(l, 7) > 0);  // length: measured
            const char *far = strstr(g, "\n");  // generate: @64 then @16384, both timed
            CHECK(csv_field(g, 3) > 0 && far && csv_field(far + 1, 3) > 0 && csv_field(far + 1, 7) > 0);
            CHECK(csv_field(pr, 5) > 0);  // profile: CPU time of its first op
        }
        for (int f = 0; f < 4; f++) free(csv[f]);
    }
}

// Part "train" at 2 threads: the row carries tokens per CPU-second at 2 threads
// and on 1 (the 1-thread steps alternate with the others in the same child) and
// their ratio, the thread efficiency; at 1 thread there is nothing to compare.
static void test_train_thread_efficiency(void) {
    const char *threads[] = {"2", "1"};
    for (int t = 0; t < 2; t++) {
        char out[512], p[600];
        tpath(out, sizeof out, t ? "bench_train1" : "bench_train2");
        char *argv[] = {"bench", "--quick", "--part", "train", "--kinds", "linear", "--sizes", "baby", "--threads",
                        (char *)threads[t], "--out", out, NULL};
        int rc = run_lmtrain(argv);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s\n", e2e_out);
        snprintf(p, sizeof p, "%s/throughput.csv", out);
        char *csv = read_all(p, NULL);
        const char *r = row_of(csv, "baby,", "linear");
        CHECK(r != NULL);
        if (!r) {
            free(csv);
            continue;
        }
        double per_cpu = csv_field(r, 23), per_cpu_1 = csv_field(r, 24), eff = csv_field(r, 25);
        CHECK(per_cpu > 0);
        if (t == 0) CHECK(per_cpu_1 > 0 && fabs(eff - per_cpu / per_cpu_1) <= 1e-3 * eff);
        else CHECK(isnan(per_cpu_1) && isnan(eff));
        CHECK((strstr(e2e_out, "thr eff") != NULL) == (t == 0));
        free(csv);
    }
}

// --rounds 3: the table three times over (each row once a round, the CSV's
// last column the round), then each row's median and range; the printed
// spread of % busy is the CSV's three readings' (the parent prints what the
// rounds measured, not one round's figure).
static void test_train_rounds(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench_rounds");
    char *argv[] = {"bench", "--quick", "--part", "train", "--kinds", "linear,softmax", "--sizes", "baby",
                    "--threads", "1", "--rounds", "3", "--set", "model.layers=1", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "round 1 of 3") && strstr(e2e_out, "round 3 of 3") && !strstr(e2e_out, "round 4"));
    snprintf(p, sizeof p, "%s/throughput.csv", out);
    char *csv = read_all(p, NULL);
    CHECK(csv && strstr(csv, ",precision,round\n"));
    double busy[3] = {NAN, NAN, NAN};
    int rows = 0;
    for (const char *r = csv ? strchr(csv, '\n') : NULL; r && r[1]; r = strchr(r + 1, '\n')) {
        rows++;
        if (strncmp(r + 1, "baby,linear,", 12)) continue;
        int round = (int)csv_field(r + 1, 27);
        CHECK(round >= 1 && round <= 3);
        if (round >= 1 && round <= 3) busy[round - 1] = csv_field(r + 1, 20);
    }
    CHECK(rows == 6);
    double lo = fmin(busy[0], fmin(busy[1], busy[2])), hi = fmax(busy[0], fmax(busy[1], busy[2]));
    double mid = busy[0] + busy[1] + busy[2] - lo - hi;
    const char *sum = strstr(e2e_out, "over the 3 rounds, median (min .. max):");
    const char *row = sum ? strstr(sum, "linear ") : NULL;
    CHECK(row != NULL);
    if (row) {
        double m = NAN, a = NAN, b = NAN;
        CHECK(sscanf(row, "linear %lf%% (%lf%% .. %lf%%)", &m, &a, &b) == 3);
        // the summary prints one decimal of the unrounded figure, the CSV keeps two: 0.05 + 0.005 apart at most
        CHECK(fabs(m - mid) <= 0.056 && fabs(a - lo) <= 0.056 && fabs(b - hi) <= 0.056);
        if (!(fabs(m - mid) <= 0.056 && fabs(a - lo) <= 0.056 && fabs(b - hi) <= 0.056))
            fprintf(stderr, "  printed %.1f (%.1f .. %.1f), the CSV's %.2f %.2f %.2f\n", m, a, b, busy[0], busy[1],
                    busy[2]);
    }
    CHECK(sum && strstr(sum, "softmax "));
    free(csv);
}

// Each mistake is refused (exit 2, naming bench) before anything is written:
// every command is given --out, and that folder must not appear.
static void test_usage_errors(void) {
    char out[512];
    tpath(out, sizeof out, "bench_bad");
    char *bad[][12] = {
        {"bench", "--out", out, "--part", "nope", NULL},
        {"bench", "--out", out, "--kinds", "softmax,bogus", NULL},
        {"bench", "--out", out, "--seq", "0", NULL},
        {"bench", "--out", out, "--seq", "64,,128", NULL},
        {"bench", "--out", out, "--seq", "12x", NULL},
        {"bench", "--out", out, "--threads", NULL},
        {"bench", "--out", out, "--frobnicate", NULL},
        {"bench", "--out", out, "--sizes", "baby,huge", NULL},
        {"bench", "--out", out, "--rounds", "0", NULL},
        {"bench", "--out", out, "--rounds", "101", NULL},
        // a --set that breaks a cross-field rule of some model bench would build (heads must
        // divide d_model): refused up front, not a child that aborts into a "failed" row
        {"bench", "--out", out, "--set", "model.heads=3", "--part", "train", "--quick", NULL},
        {"bench", "--out", out, "--set", "model.heads=5", "--part", "length", "--quick", NULL},
        // a key the kind reads, with a value it refuses: linear reads normalize with identity φ
        {"bench", "--out", out, "--set", "attention.feature_map=identity", "--kinds", "linear", "--part", "train",
         "--quick", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_lmtrain(bad[i]);
        CHECK(rc == 2);
        CHECK(strstr(e2e_out, "bench") != NULL);
        CHECK(!file_exists(out));
        if (rc != 2 || file_exists(out)) fprintf(stderr, "  case %zu (%s %s): exit %d\n%s\n", i, bad[i][3],
                                                 bad[i][4] ? bad[i][4] : "", rc, e2e_out);
    }
}

#include <sys/resource.h>

static int limit_memory(void *ctx) {
    struct rlimit r = {*(rlim_t *)ctx, *(rlim_t *)ctx};
    return setrlimit(RLIMIT_AS, &r);
}

// A measurement that fails (here: the large model's child runs out of address
// space) makes bench exit 1 and say how many failed, after writing the rest.
#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif
static void test_failed_measurement_is_exit_1(void) {
#ifdef ASAN_BUILD
    // AddressSanitizer reserves terabytes of address space for its shadow
    // memory at start, so under an RLIMIT_AS no child starts at all; the plain
    // builds run this.
    SKIP("no-sanitizer", "an address-space limit stops AddressSanitizer's shadow memory, not the large model");
    return;
#endif
    char out[512], log[512];
    tpath(out, sizeof out, "bench_fail");
    tpath(log, sizeof log, "bench_fail.log");
    char *argv[] = {"bench", "--out", out, "--part", "train", "--sizes", "baby,large", "--kinds", "softmax",
                    "--quick", "--threads", "1", NULL};
    rlim_t limit = (rlim_t)400 << 20;  // the baby model fits, the large one does not
    int rc = wait_status(spawn_lmtrain_with(argv, log, limit_memory, &limit));
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "failed") && strstr(e2e_out, "1 of"));
    char csv[600];
    snprintf(csv, sizeof csv, "%s/throughput.csv", out);
    CHECK(file_exists(csv));  // what did run is kept
    if (rc != 1) fprintf(stderr, "  exit %d\n%s\n", rc, e2e_out);
}

int main(void) {
    e2e_setup();
    TEST(test_length_part);
    TEST(test_peak_and_generate_parts);
    TEST(test_generate_int8_skipped_without_vnni);
    TEST(test_profile_part);
    TEST(test_products_part);
    TEST(test_every_part_every_kind);
    TEST(test_train_thread_efficiency);
    TEST(test_train_rounds);
    TEST(test_usage_errors);
    TEST(test_failed_measurement_is_exit_1);
    e2e_teardown();
    return test_summary();
}
