// export.c — `lmtrain export --run DIR [--out FILE] [--force]`: the trained weights as a
// safetensors file (default DIR/model.safetensors), for other toolkits.
//
// Every parameter, float32, under the model's own names and in the model's
// parameter order (model.c, param_specs). Vectors (LayerNorm weights and
// biases, attn.theta as [heads]) are 1-D; matrices are 2-D [rows, cols],
// row-major, laid out as torch.nn.Linear stores them: (out_features,
// in_features), so y = x W^T. In particular h.{i}.attn.qkv.weight is
// [3C + H*n_aux, C] with rows 0..C-1 = W_q, C..2C-1 = W_k, 2C..3C-1 = W_v (then
// the rows each kind owns, head by head, as attention/params.h lists them and
// `lmtrain inspect` prints them: delta's β row, then with decay = data the
// gate row w_h, whose bias is attn.theta[h]; none for softmax, linear and
// linear_decay with a fixed or learned decay): the same stacking as nanoGPT's
// c_attn. The output head is tied to wte and is not stored twice.
//
// __metadata__ (strings only):
//   format          "pt"
//   lmtrain_config  the resolved configuration, INI text (as in DIR/config.ini)
//   lmtrain_step    optimizer steps the weights were trained for
//   vocab_bytes     text task: token id i decodes to byte value number i of
//                   this comma-separated list ("10,32,33,...")
//   vocab_symbols   recall task: token id i is symbol i ("_,k1,...,v63")
//
// Loading it in PyTorch, and into nanoGPT's GPT (model.py). nanoGPT computes
// the same function only for kind = softmax, pos = learned, ffn_mult = 4,
// output_norm = false, key_shift = false; it needs bias=True (lmtrain's
// LayerNorms have biases, its Linear layers do not: those stay zero) and the
// tanh GELU that lmtrain uses.
//
//   import configparser, torch
//   from safetensors import safe_open
//   from safetensors.torch import load_file
//   from model import GPT, GPTConfig              # nanoGPT
//
//   path = "runs/softmax/model.safetensors"
//   sd = load_file(path)                          # name -> float32 tensor
//   with safe_open(path, framework="pt") as f:
//       meta = f.metadata()
//   vocab = bytes(int(b) for b in meta["vocab_bytes"].split(","))  # id -> byte
//   ini = configparser.ConfigParser()
//   ini.read_string(meta["lmtrain_config"])
//   m = ini["model"]
//   gpt = GPT(GPTConfig(block_size=int(m["block_size"]), vocab_size=len(vocab),
//                       n_layer=int(m["layers"]), n_head=int(m["heads"]),
//                       n_embd=int(m["d_model"]), dropout=0.0, bias=True))
//   def nanogpt_name(n):
//       n = (n.replace(".attn.qkv.", ".attn.c_attn.").replace(".attn.proj.", ".attn.c_proj.")
//             .replace(".mlp.fc.", ".mlp.c_fc.").replace(".mlp.proj.", ".mlp.c_proj."))
//       return "transformer." + n
//   nsd = {nanogpt_name(k): v for k, v in sd.items()}
//   nsd["lm_head.weight"] = nsd["transformer.wte.weight"]        # tied head
//   with torch.no_grad():
//       for name, p in gpt.named_parameters():   # Linear biases: lmtrain has none
//           if name.endswith(".bias") and name not in nsd:
//               p.zero_()
//   missing, unexpected = gpt.load_state_dict(nsd, strict=False)
//   assert not unexpected and all(k.endswith(".bias") for k in missing)
//   for block in gpt.transformer.h:
//       block.mlp.gelu = torch.nn.GELU(approximate="tanh")
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "cmd/args.h"
#include "cmd/commands.h"
#include "cmd/run_load.h"
#include "format/safetensors.h"
#include "train/checkpoint.h"
#include "train/data.h"
#include "util/err.h"
#include "util/file_check.h"


// 1 if `path` is a safetensors file written by lmtrain export: its 8-byte
// header length, then a JSON header whose metadata holds "lmtrain_config".
// Reads at most the first 1 MiB.
static int is_lmtrain_export(const char *path) {
    int fd;
    size_t size;
    if (open_regular(path, "file", 0, &fd, &size)) return 0;
    unsigned char len8[8];
    char *head = NULL;
    int yes = 0;
    if (size >= 8 && read(fd, len8, 8) == 8) {
        uint64_t n = 0;
        for (int i = 0; i < 8; i++) n |= (uint64_t)len8[i] << (8 * i);
        size_t want = n < ((size_t)1 << 20) ? (size_t)n : ((size_t)1 << 20);
        if (n > 0 && n <= size - 8) {
            head = xmalloc(want + 1);
            ssize_t got = read(fd, head, want);
            if (got > 0) {
                head[got] = 0;
                yes = head[0] == '{' && strstr(head, "\"lmtrain_config\"") != NULL;
            }
        }
    }
    free(head);
    close(fd);
    return yes;
}

// The export never replaces a FIFO, device, socket, folder or symbolic link,
// and replaces a regular file only if it is an earlier export, or with --force.
static int check_export_target(const char *out, int force) {
    struct stat st;
    if (lstat(out, &st) != 0) return 0;
    int rc = check_replaceable(out);
    if (rc) return rc;
    if (!force && !is_lmtrain_export(out))
        return err_set(ERR_USAGE, "%s exists and is not an lmtrain export; add --force to replace it", out);
    return 0;
}

// Matrices keep their 2-D shape; everything else is stored as (1, n) in the
// model and exported as the 1-D vector it is. Decided by which slot the tensor
// fills, not by its row count (wte has one row when the vocabulary has one
// token, and is still a matrix).
static int is_matrix(const Model *m, const Tensor *t) {
    if (t == m->wte || t == m->wpe) return 1;
    for (size_t l = 0; l < m->L; l++) {
        const Layer *y = &m->layer[l];
        if (t == y->qkv || t == y->proj || t == y->fc || t == y->fc_proj) return 1;
    }
    return 0;
}

// "10,32,33,..." (text: byte values) or "_,k1,...,v63" (recall: symbols), malloc'd.
static char *vocab_list(const Dataset *d, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    int V = dataset_vocab_size(d);
    for (int i = 0; i < V; i++) {
        char sym[8];
        size_t n = dataset_decode(d, i, sym);
        if (i) fputc(',', f);
        if (dataset_task(d) == TASK_TEXT) fprintf(f, "%u", (unsigned char)sym[0]);
        else fwrite(sym, 1, n, f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int write_export(const LoadedRun *r, const char *out) {
    const Model *m = &r->model;
    char *cfg_text = NULL, *vocab = NULL, step[32];
    size_t cfg_len = 0, vocab_len = 0;
    FILE *f = open_memstream(&cfg_text, &cfg_len);
    int rc = f ? config_write(&r->cfg, f) : ERR_RUNTIME;
    if (f && fclose(f) != 0 && !rc) rc = ERR_RUNTIME;
    if (!rc && !(vocab = vocab_list(r->data, &vocab_len))) rc = ERR_RUNTIME;
    if (rc) {
        free(cfg_text);
        free(vocab);
        return err_set(ERR_RUNTIME, "%s: cannot format the metadata", out);
    }
    snprintf(step, sizeof step, "%llu", (unsigned long long)r->st.step);
    StMeta meta[] = {
        {"format", "pt", 2},
        {"lmtrain_config", cfg_text, cfg_len},
        {"lmtrain_step", step, strlen(step)},
        {r->cfg.task == TASK_TEXT ? "vocab_bytes" : "vocab_symbols", vocab, vocab_len},
    };
    StTensor *t = xcalloc(m->n_params, sizeof *t);
    for (size_t i = 0; i < m->n_params && !rc; i++) {
        const Tensor *p = &m->params[i].t;
        t[i] = (StTensor){.name = p->name, .data = p->data};
        if (is_matrix(m, p)) {
            t[i].ndim = 2;
            t[i].shape[0] = p->rows;
            t[i].shape[1] = p->cols;
        } else if (p->rows == 1) {
            t[i].ndim = 1;
            t[i].shape[0] = p->cols;
        } else {
            rc = err_set(ERR_RUNTIME, "internal error: parameter '%s' is (%zu, %zu), expected a vector",
                         p->name, p->rows, p->cols);
        }
    }
    if (!rc) rc = safetensors_write(out, meta, sizeof meta / sizeof meta[0], t, m->n_params);
    free(t);
    free(cfg_text);
    free(vocab);
    return rc;
}

int cmd_export(int argc, char **argv) {
    const char *run = NULL, *out = NULL;
    int force = 0;
    const ArgOpt opts[] = {
        {"--run", ARG_STRING, &run, "DIR", .help = "the run folder (with checkpoint.bin)", .required = 1},
        {"--out", ARG_STRING, &out, "FILE", .help = "the file to write", .shown_default = "DIR/model.safetensors"},
        {"--force", ARG_FLAG, &force, NULL, .help = "replace FILE even if it is not an earlier lmtrain export"},
    };
    const ArgSpec spec = {"export", "--run DIR [--out FILE] [--force]",
                          "The trained weights as a safetensors file (float32, nanoGPT's layout), for other toolkits.",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);

    char dflt[4200];
    if ((size_t)snprintf(dflt, sizeof dflt, "%s/model.safetensors", run) >= sizeof dflt)
        return err_set(ERR_USAGE, "export: run folder path too long");
    if (!out) out = dflt;
    LoadedRun r;
    if ((rc = run_load(&r, run))) return err_wrap(rc, "export: ");
    rc = check_export_target(out, force);
    if (!rc) rc = write_export(&r, out);
    if (!rc)
        printf("exported %zu tensors (%zu weights, step %llu) to %s\n", r.model.n_params, r.model.n_weights,
               (unsigned long long)r.st.step, out);
    run_unload(&r);
    return rc ? err_wrap(rc, "export: ") : 0;
}
