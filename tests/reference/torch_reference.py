#!/usr/bin/env python3
"""An independent PyTorch implementation of lmtrain's model and schedule.

Not part of the build or of `make test` (lmtrain depends on nothing but libc):
a cross-check a reader can run where PyTorch is installed (Debian:
`apt-get install python3-torch`, then run with /usr/bin/python3).

    torch_reference.py train CONFIG.ini [--steps N] [--seed S]
        trains the same model with the same hyperparameters (its own batch
        RNG) and prints the val loss at each eval and the full-split val loss.
    torch_reference.py eval RUN_DIR
        loads RUN_DIR/model.safetensors (from `lmtrain export`) and prints the
        full-split val loss, to compare with `lmtrain eval --run RUN_DIR`.

Written from SPEC.md section 4 (and section 10's key_norm = l2 and decay = data,
from the DeltaNet and Gated DeltaNet papers), not from lmtrain's C code.
"""
import configparser, json, math, struct, sys, time
import torch
import torch.nn.functional as F

def load_cfg(path):
    return load_cfg_text(open(path).read())

def load_cfg_text(text):
    """The settings this implementation reads, from INI text (lmtrain's keys and defaults)."""
    cp = configparser.ConfigParser(inline_comment_prefixes=('#', ';'))
    cp.read_string(text)
    g = lambda s, k, d: cp.get(s, k, fallback=d)
    # Options this implementation does not have: refuse them rather than compute something else.
    for (sec, key), default in {('attention', 'state_init'): 'zero', ('attention', 'output_norm'): 'false',
                                ('attention', 'key_shift'): 'false'}.items():
        if g(sec, key, default) != default:
            raise NotImplementedError(f"torch_reference.py: [{sec}] {key} = {g(sec, key, default)} is not implemented")
    kind, normalize = g('attention', 'kind', 'softmax'), g('attention', 'normalize', 'true') == 'true'
    key_norm = g('attention', 'key_norm', 'sum')  # sum | l2: how delta normalises phi(q), phi(k)
    if key_norm not in ('sum', 'l2') or (key_norm == 'l2' and (kind != 'delta' or not normalize)):
        raise NotImplementedError(f"torch_reference.py: [attention] key_norm = {key_norm} with kind = {kind}, "
                                  f"normalize = {normalize} is not defined (l2: delta with normalize = true)")
    decay = g('attention', 'decay', None)  # fixed | learned | data; decay_learnable is its older spelling
    if decay not in (None, 'fixed', 'learned', 'data') or (decay == 'data' and kind not in ('linear_decay', 'delta')):
        raise NotImplementedError(f"torch_reference.py: [attention] decay = {decay} with kind = {kind} is not defined")
    c = dict(
        path=g('data', 'path', 'data/tinyshakespeare.txt'), val_fraction=float(g('data', 'val_fraction', '0.1')),
        layers=int(g('model', 'layers', '4')), heads=int(g('model', 'heads', '4')),
        d_model=int(g('model', 'd_model', '128')), ffn_mult=int(g('model', 'ffn_mult', '4')),
        block_size=int(g('model', 'block_size', '64')), pos=g('model', 'pos', 'learned'),
        kind=kind, feature_map=g('attention', 'feature_map', 'elu1'),
        eps=float(g('attention', 'eps', '1e-6')), normalize=normalize, key_norm=key_norm, data_decay=decay == 'data',
        decay_init=[float(d) for d in g('attention', 'decay_init', '0.99').split(',')],  # one, or one per head
        decay_learnable=decay != 'fixed' if decay else g('attention', 'decay_learnable', 'true') == 'true',
        steps=int(g('train', 'steps', '2000')), batch_size=int(g('train', 'batch_size', '12')),
        lr=float(g('train', 'lr', '1e-3')), min_lr=float(g('train', 'min_lr', '1e-4')),
        warmup=int(g('train', 'warmup', '100')), weight_decay=float(g('train', 'weight_decay', '0.1')),
        beta1=float(g('train', 'beta1', '0.9')), beta2=float(g('train', 'beta2', '0.99')),
        grad_clip=float(g('train', 'grad_clip', '1.0')), eval_every=int(g('train', 'eval_every', '250')),
        eval_batches=int(g('train', 'eval_batches', '20')))
    return c

def phi(x, fmap):
    if fmap == 'elu1': return F.elu(x) + 1
    if fmap == 'relu': return F.relu(x)
    return x

# The two pieces of the attention options below are module functions so that
# make_golden.py can knock each out (replace it with a wrong one) and measure
# that the golden test would notice.

def delta_features(fq, fk, c):
    """delta's q^, k^ from phi(q), phi(k) (last axis: the head's coordinates).
    key_norm = sum: divided by their sum plus eps (Schlag et al. 2021);
    key_norm = l2: divided by their Euclidean length, sqrt(sum of squares + eps)
    (DeltaNet, Yang et al. 2024), so that |k^| = 1 and beta = 1 replaces exactly."""
    if c['key_norm'] == 'l2':
        return (fq / torch.sqrt((fq * fq).sum(-1, keepdim=True) + c['eps']),
                fk / torch.sqrt((fk * fk).sum(-1, keepdim=True) + c['eps']))
    return fq / (fq.sum(-1, keepdim=True) + c['eps']), fk / (fk.sum(-1, keepdim=True) + c['eps'])

def data_log_lambda(theta, gate):
    """decay = data: log lambda_t = log sigmoid(w_h^T x_t + b_h) for every head and token,
    gate (B, H, T) the projections w_h^T x_t, theta (H) the biases b_h."""
    return F.logsigmoid(gate + theta.view(1, -1, 1))

class Attn(torch.nn.Module):
    def __init__(s, c):
        super().__init__()
        C = c['d_model']; s.c = c; s.H = c['heads']; s.dh = C // s.H
        # Per head, rows after q, k, v (head-major: head h's rows are together):
        # delta's beta logit, then with decay = data the gate projection w_h^T x.
        s.n_aux = (c['kind'] == 'delta') + c['data_decay']
        s.qkv = torch.nn.Linear(C, 3 * C + s.H * s.n_aux, bias=False)
        s.proj = torch.nn.Linear(C, C, bias=False)
        if c['kind'] in ('linear_decay', 'delta'):
            d = torch.tensor(c['decay_init'], dtype=torch.float64).expand(s.H)
            s.theta = torch.nn.Parameter(torch.log(d / (1 - d)).float(), requires_grad=c['decay_learnable'])
    def forward(s, x):
        B, T, C = x.shape
        q, k, v, a = s.qkv(x).split([C, C, C, s.qkv.out_features - 3 * C], dim=2)
        q, k, v = [t.view(B, T, s.H, s.dh).transpose(1, 2) for t in (q, k, v)]
        loglam_t = None  # decay = data: log lambda_t (B, H, T)
        if s.c['data_decay']:
            loglam_t = data_log_lambda(s.theta, a.view(B, T, s.H, s.n_aux)[..., -1].transpose(1, 2))
        if s.c['kind'] == 'delta':
            if loglam_t is not None:
                y = s.gated_delta(q, k, v, a.view(B, T, s.H, s.n_aux)[..., 0], loglam_t)
            else:
                y = s.delta(q, k, v, a)
            return s.proj(y.transpose(1, 2).reshape(B, T, C))
        i = torch.arange(T)
        mask = (i[:, None] >= i[None, :]).float()
        if s.c['kind'] == 'softmax':
            att = (q @ k.transpose(-1, -2)) / math.sqrt(s.dh)
            att = att.masked_fill(mask == 0, float('-inf')).softmax(-1)
            y = att @ v
        else:  # the naive masked form: y_i = sum_j w_ij phi(q_i).phi(k_j) v_j
            fq, fk = phi(q, s.c['feature_map']), phi(k, s.c['feature_map'])
            D = mask
            if loglam_t is not None:
                # S_i = lambda_i S_{i-1} + phi(k_i) v_i^T  =>  the weight of j in y_i is
                # the product of lambda_m over j < m <= i (1 for j = i), a sum of logs
                between = ((i[None, None, :] > i[None, :, None]) & (i[None, None, :] <= i[:, None, None]))
                D = torch.exp(torch.einsum('bhm,ijm->bhij', loglam_t, between.to(loglam_t.dtype))) * mask
            elif s.c['kind'] == 'linear_decay':
                logl = F.logsigmoid(s.theta).view(1, s.H, 1, 1)
                D = torch.exp((i[:, None] - i[None, :]).clamp(min=0).float() * logl) * mask
            A = (fq @ fk.transpose(-1, -2)) * D
            y = A @ v
            if s.c['normalize']: y = y / (A.sum(-1, keepdim=True) + s.c['eps'])
        return s.proj(y.transpose(1, 2).reshape(B, T, C))

    def delta(s, q, k, v, a):
        """The delta rule, token by token (README "The delta rule"): q, k, v (B, H, T, dh), a (B, T, H).
        k^, q^ as delta_features says, beta = sigmoid(a), lambda = sigmoid(theta),
        S_t = lambda S_{t-1} + beta k^ (v - lambda S_{t-1}^T k^)^T, y_t = S_t^T q^."""
        fq, fk = phi(q, s.c['feature_map']), phi(k, s.c['feature_map'])
        if s.c['normalize']: fq, fk = delta_features(fq, fk, s.c)
        beta = torch.sigmoid(a).transpose(1, 2)                      # (B, H, T)
        lam = torch.sigmoid(s.theta).view(1, s.H, 1, 1)
        B, H, T, d = q.shape
        S = q.new_zeros(B, H, d, d)                                  # rows: key coordinate
        ys = []
        for t in range(T):
            kt, vt = fk[:, :, t], v[:, :, t]
            err = vt - torch.einsum('bhi,bhij->bhj', kt, lam * S)    # what the memory gets wrong
            S = lam * S + beta[:, :, t, None, None] * kt[..., :, None] * err[..., None, :]
            ys.append(torch.einsum('bhi,bhij->bhj', fq[:, :, t], S))
        return torch.stack(ys, dim=2)

    def gated_delta(s, q, k, v, a, loglam):
        """The gated delta rule (Gated DeltaNet, Yang, Kautz & Hatamizadeh 2024), token by token,
        in the paper's product form, transposed (rows of S: key coordinate):
        S_t = lambda_t (I - beta_t k^_t k^_t^T) S_{t-1} + beta_t k^_t v_t^T,  y_t = S_t^T q^_t,
        lambda_t = exp(loglam) per head and token, beta_t = sigmoid(a) (a: (B, T, H))."""
        fq, fk = phi(q, s.c['feature_map']), phi(k, s.c['feature_map'])
        if s.c['normalize']: fq, fk = delta_features(fq, fk, s.c)
        beta, lam = torch.sigmoid(a).transpose(1, 2), torch.exp(loglam)  # (B, H, T) each
        B, H, T, d = q.shape
        S = q.new_zeros(B, H, d, d)
        ys = []
        for t in range(T):
            kt, bt = fk[:, :, t], beta[:, :, t, None, None]
            erase = torch.eye(d, dtype=S.dtype) - bt * kt[..., :, None] * kt[..., None, :]
            S = lam[:, :, t, None, None] * (erase @ S) + bt * kt[..., :, None] * v[:, :, t, None, :]
            ys.append((fq[:, :, t, None, :] @ S).squeeze(-2))
        return torch.stack(ys, dim=2)

class Block(torch.nn.Module):
    def __init__(s, c):
        super().__init__()
        C = c['d_model']
        s.ln_1 = torch.nn.LayerNorm(C); s.attn = Attn(c)
        s.ffn = c['ffn_mult'] > 0
        if s.ffn:
            s.ln_2 = torch.nn.LayerNorm(C)
            s.fc = torch.nn.Linear(C, c['ffn_mult'] * C, bias=False)
            s.fc_proj = torch.nn.Linear(c['ffn_mult'] * C, C, bias=False)
    def forward(s, x):
        x = x + s.attn(s.ln_1(x))
        if s.ffn: x = x + s.fc_proj(F.gelu(s.fc(s.ln_2(x)), approximate='tanh'))
        return x

class GPT(torch.nn.Module):
    def __init__(s, c, V):
        super().__init__()
        C = c['d_model']; s.c = c
        s.wte = torch.nn.Embedding(V, C)
        s.wpe = torch.nn.Embedding(c['block_size'], C) if c['pos'] == 'learned' else None
        s.h = torch.nn.ModuleList(Block(c) for _ in range(c['layers']))
        s.ln_f = torch.nn.LayerNorm(C)
        for n, p in s.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * c['layers']) if n.endswith('attn.proj.weight') or n.endswith('fc_proj.weight') else 0.02
                torch.nn.init.normal_(p, 0.0, std)
    def forward(s, idx, targets):
        B, T = idx.shape
        x = s.wte(idx)
        if s.wpe is not None: x = x + s.wpe(torch.arange(T))
        for b in s.h: x = b(x)
        logits = s.ln_f(x) @ s.wte.weight.t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

def data_splits(c):
    raw = open(c['path'], 'rb').read()
    vocab = sorted(set(raw))
    stoi = {b: i for i, b in enumerate(vocab)}
    ids = torch.tensor([stoi[b] for b in raw], dtype=torch.long)
    n = int(len(ids) * (1 - c['val_fraction']))
    return ids[:n], ids[n:], len(vocab)

def batch(split, c, gen):
    T, B = c['block_size'], c['batch_size']
    ix = torch.randint(len(split) - T, (B,), generator=gen)
    return torch.stack([split[i:i + T] for i in ix]), torch.stack([split[i + 1:i + 1 + T] for i in ix])

def lr_at(c, it):
    if it < c['warmup']: return c['lr'] * (it + 1) / (c['warmup'] + 1)
    r = (it - c['warmup']) / max(1, c['steps'] - c['warmup'])
    return c['min_lr'] + 0.5 * (1 + math.cos(math.pi * r)) * (c['lr'] - c['min_lr'])

def make_optimizer(model, c, decay_all=False):
    """AdamW; weight decay on matrices and embeddings only (not LayerNorm, not theta)."""
    learn = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in learn if p.dim() >= 2 or decay_all]
    other = [p for p in learn if not (p.dim() >= 2 or decay_all)]
    return torch.optim.AdamW([{'params': decay, 'weight_decay': c['weight_decay']},
                              {'params': other, 'weight_decay': 0.0}], lr=c['lr'], betas=(c['beta1'], c['beta2']))

def train_step(model, opt, c, it, x, y, schedule=lr_at, clip=True):
    """One step of the recipe (0-based it); returns (loss, gradient norm before clipping, lr)."""
    lr = schedule(c, it)
    for gr in opt.param_groups: gr['lr'] = lr
    loss = model(x, y)
    opt.zero_grad(set_to_none=True); loss.backward()
    learn = [p for p in model.parameters() if p.requires_grad]
    norm = torch.nn.utils.clip_grad_norm_(learn, c['grad_clip'] if clip else float('inf'))
    opt.step()
    return loss.item(), norm.item(), lr

@torch.no_grad()
def full_val(model, val, c):
    T = c['block_size']; n = (len(val) - 1) // T; tot = 0.0
    for s in range(0, n, 64):
        w = range(s, min(n, s + 64))
        x = torch.stack([val[i * T:i * T + T] for i in w]); y = torch.stack([val[i * T + 1:i * T + T + 1] for i in w])
        tot += model(x, y).item() * len(w) * T
    return tot / (n * T)

def train(cfg_path, steps=None, seed=1337):
    c = load_cfg(cfg_path)
    if steps: c['steps'] = steps
    torch.manual_seed(seed)
    tr, val, V = data_splits(c)
    model = GPT(c, V)
    opt = make_optimizer(model, c)
    gen = torch.Generator().manual_seed(seed)
    t0 = time.time()
    for it in range(c['steps'] + 1):
        if it % c['eval_every'] == 0 or it == c['steps']:
            g2 = torch.Generator().manual_seed(seed + 1)
            with torch.no_grad():
                vl = sum(model(*batch(val, c, g2)).item() for _ in range(c['eval_batches'])) / c['eval_batches']
            print(f"step {it}: val loss {vl:.4f} ({time.time() - t0:.0f}s)", flush=True)
        if it == c['steps']: break
        train_step(model, opt, c, it, *batch(tr, c, gen))
    print(f"full-split val loss {full_val(model, val, c):.4f}")

def read_safetensors(path):
    raw = open(path, 'rb').read()
    n = struct.unpack('<Q', raw[:8])[0]
    head = json.loads(raw[8:8 + n]); data = raw[8 + n:]
    meta = head.pop('__metadata__', {})
    out = {}
    for name, t in head.items():
        b, e = t['data_offsets']
        out[name] = torch.frombuffer(bytearray(data[b:e]), dtype=torch.float32).reshape(t['shape'])
    return out, meta

def lmtrain_names(model):
    """lmtrain's tensor name (as in `lmtrain export`) -> this model's parameter."""
    ours = {'wte': 'wte.weight', 'wpe': 'wpe.weight', 'mlp.fc.weight': 'fc.weight',
            'mlp.proj.weight': 'fc_proj.weight'}
    out = {}
    for name, p in model.named_parameters():
        theirs = name
        for a, b in ours.items():
            if name == b or name.endswith('.' + b): theirs = name[:len(name) - len(b)] + a
        out[theirs] = p
    return out

def eval_run(run_dir):
    c = load_cfg(run_dir + '/config.ini')
    tr, val, V = data_splits(c)
    model = GPT(c, V)
    w, _ = read_safetensors(run_dir + '/model.safetensors')
    params = lmtrain_names(model)
    assert set(params) == set(w), f"tensor names differ: {sorted(set(params) ^ set(w))}"
    with torch.no_grad():
        for name, p in params.items(): p.copy_(w[name].reshape(p.shape))
    print(f"full-split val loss {full_val(model, val, c):.6f}")

if __name__ == '__main__':
    a = sys.argv[1:]
    if a and a[0] == 'train':
        steps = int(a[a.index('--steps') + 1]) if '--steps' in a else None
        seed = int(a[a.index('--seed') + 1]) if '--seed' in a else 1337
        train(a[1], steps, seed)
    elif a and a[0] == 'eval': eval_run(a[1])
    else: print(__doc__)
