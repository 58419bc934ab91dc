#!/usr/bin/env python3
"""Writes tests/reference/golden.safetensors: training trajectories that
tests/train/test_golden.c replays with lmtrain (the llm.c test_gpt2 idea).

    /usr/bin/python3 tests/reference/make_golden.py [--data data/tinyshakespeare.txt] [--out FILE] [--replace]

Run by a developer (needs PyTorch: Debian's python3-torch), never by `make test`.
The trajectories come from torch_reference.py, the independent PyTorch
implementation of SPEC section 4, run in float64 so that the golden numbers
are the recipe's exact values and what the C test measures is lmtrain's own
float32 error.

For every VARIANT below: the initial weights, a fixed list of batches (shared
by all variants), and for each AdamW step the loss, the gradient norm before
clipping and the learning rate, then every parameter after the last step.
BASE is chosen so that every part of the recipe acts inside those steps:
warm-up, the whole cosine decay to min_lr, gradient clipping that engages
on some steps (and not on others, so that Adam's scale invariance cannot hide
it), weight decay (large enough to see, on matrices and embeddings only).
The script checks this itself, and refuses to write the file otherwise:
  - power: it re-runs each variant with one part of the recipe knocked out
    (the bugs the C test must catch: a linear schedule, no clipping, weight
    decay on every tensor, a frozen θ that learns; for key_norm = l2, q or k
    not normalised, the sum norm instead, |φ| + eps; for decay = data, the gate a token
    late (λ_t from x_{t-1}), no gradient to the gate's weight, a frozen gate
    bias θ) and requires every
    knock-out to move some final tensor by KNOCKOUT_MARGIN times the C test's
    parameter tolerance;
  - conditioning: it re-runs each variant in float32 (as lmtrain computes) and
    requires the float32 run to stay KNOCKOUT_MARGIN times inside every
    tolerance, so that a correct lmtrain cannot fail by rounding. (At lr 1e-2
    the float32 runs drifted to 1e-4 in the parameters and, through a
    grad-norm spike, 2e-4 in the norm: that is why lr is 3e-3.)
Each variant draws its initial weights from its own seed, so adding one leaves
the others' data byte for byte unchanged; the script is deterministic. It checks
that too: where FILE exists, every variant already in it must come out byte for
byte the same (tensors and configuration), or nothing is written; --replace
writes anyway (after a deliberate change to the recipe or to a variant).

Adding a variant (say a new attention option): teach torch_reference.py the
option (load_cfg_text, which refuses options it does not implement, and the
model), then add one entry to VARIANTS with the INI keys it sets, e.g.
    ('delta_l2', {'attention.kind': 'delta', 'attention.key_norm': 'l2'}),
re-run this script and commit the file. The C test reads the variant list and
each variant's configuration from the file: it needs no change.

File format (safetensors: 8-byte little-endian header length, JSON header,
raw little-endian data; read by tests/format/safetensors_read.h):
  __metadata__  "format": "lmtrain-golden 1"; "variants": comma-separated names;
                "steps", "batch_size", "block_size": the trajectory's sizes;
                "<variant>.config": lmtrain INI text the C test loads as is
  batches.inputs, batches.targets      I32 [steps, batch_size, block_size]
  <variant>/init/<tensor>              F32, lmtrain's names and shapes (as `lmtrain export`)
  <variant>/final/<tensor>             F32, after the last step
  <variant>/loss, /grad_norm, /lr      F64 [steps]
"""
import json, math, os, struct, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_reference as ref

SEED = 1234
STEPS = 16

# Small enough for a fast test and a small file, large enough for every code
# path: two layers, two heads of 10 (not a multiple of the SIMD width),
# chunk 5 (does not divide block_size 16), an FFN.
BASE = {
    'data': {'task': 'text', 'path': 'data/tinyshakespeare.txt'},
    'model': {'layers': 2, 'heads': 2, 'd_model': 20, 'ffn_mult': 2, 'block_size': 16, 'pos': 'learned'},
    'attention': {'feature_map': 'elu1', 'normalize': 'true', 'eps': 1e-6, 'decay_init': 0.9, 'chunk': 5},
    'train': {'steps': STEPS, 'batch_size': 4, 'lr': 3e-3, 'min_lr': 3e-4, 'warmup': 4,
              'weight_decay': 0.3, 'beta1': 0.9, 'beta2': 0.99, 'grad_clip': 1.0},
}

# name -> the INI keys it sets on top of BASE ("section.key": value)
VARIANTS = [
    ('softmax', {'attention.kind': 'softmax'}),
    ('linear', {'attention.kind': 'linear'}),
    ('linear_decay', {'attention.kind': 'linear_decay'}),
    ('linear_decay_frozen', {'attention.kind': 'linear_decay', 'attention.decay_learnable': 'false'}),
    # delta's default key_norm is l2 with identity φ (docs/delta.md); the variants
    # written when it was sum name their key_norm, so the file reads the same whatever
    # the default (BASE names feature_map = elu1 for every variant)
    ('delta', {'attention.kind': 'delta', 'attention.key_norm': 'sum'}),
    ('delta_l2', {'attention.kind': 'delta', 'attention.key_norm': 'l2'}),
    ('linear_decay_data', {'attention.kind': 'linear_decay', 'attention.decay': 'data'}),
    ('delta_data', {'attention.kind': 'delta', 'attention.key_norm': 'sum', 'attention.decay': 'data'}),
    # Gated DeltaNet as configs/recall_delta_data.ini: L2 keys let feature_map = identity
    ('delta_l2_data', {'attention.kind': 'delta', 'attention.key_norm': 'l2', 'attention.decay': 'data',
                       'attention.feature_map': 'identity'}),
    # the same with one head of 64: lmtrain trains delta heads of 64 and more in the
    # chunkwise WY form (src/attention/delta_wy.c), smaller ones token by token;
    # one layer without FFN keeps the file small (its gradient norms are larger: clip at 2)
    ('delta_l2_data_wy', {'attention.kind': 'delta', 'attention.key_norm': 'l2', 'attention.decay': 'data',
                          'attention.feature_map': 'identity', 'model.heads': 1, 'model.d_model': 64,
                          'model.layers': 1, 'model.ffn_mult': 0, 'train.grad_clip': 2.0}),
    # where eps sits in the L2 norm, sqrt(sum phi^2 + eps), moves the parameters by
    # 7e-5 at eps 1e-6 (under PARAM_TOL): a larger eps pins it; relu (features that
    # are often 0, so small norms) makes it count (with elu1 the float32 run drifted)
    ('delta_l2_eps', {'attention.kind': 'delta', 'attention.key_norm': 'l2', 'attention.eps': 1e-3, 'attention.feature_map': 'relu'}),
]

# The C test's tolerances (tests/train/test_golden.c) and the margin a
# knocked-out recipe part must exceed them by.
PARAM_TOL, LOSS_TOL = 1e-4, 1e-4
KNOCKOUT_MARGIN = 10


def ini_text(overrides):
    sec = {k: dict(v) for k, v in BASE.items()}
    for key, val in overrides.items():
        s, k = key.split('.')
        sec.setdefault(s, {})[k] = val
    return ''.join(f'[{s}]\n' + ''.join(f'{k} = {v}\n' for k, v in kv.items()) for s, kv in sec.items())


def batches(path):
    raw = open(path, 'rb').read()
    stoi = {b: i for i, b in enumerate(sorted(set(raw)))}
    ids = torch.tensor([stoi[b] for b in raw], dtype=torch.long)
    g = torch.Generator().manual_seed(SEED)
    B, T = BASE['train']['batch_size'], BASE['model']['block_size']
    xs, ys = [], []
    for _ in range(STEPS):
        ix = torch.randint(len(ids) - T, (B,), generator=g)
        xs.append(torch.stack([ids[i:i + T] for i in ix]))
        ys.append(torch.stack([ids[i + 1:i + T + 1] for i in ix]))
    return torch.stack(xs), torch.stack(ys), len(stoi)


def lr_linear(c, it):  # knock-out: linear decay after the warm-up instead of cosine
    if it < c['warmup']: return ref.lr_at(c, it)
    r = (it - c['warmup']) / max(1, c['steps'] - c['warmup'])
    return c['lr'] - r * (c['lr'] - c['min_lr'])


def trajectory(c, init, X, Y, V, schedule=ref.lr_at, clip=True, decay_all=False, dtype=torch.float64,
               patch=None, tweak=None):
    """Trains from `init` (lmtrain name -> float32 tensor), in float64 unless told;
    returns (per-step (loss, norm, lr), final lmtrain name -> tensor). Knock-outs:
    patch replaces torch_reference functions by name for the run, tweak(model) alters the model."""
    saved = {n: getattr(ref, n) for n in (patch or {})}
    try:
        for n, f in (patch or {}).items(): setattr(ref, n, f)
        return _trajectory(c, init, X, Y, V, schedule, clip, decay_all, dtype, tweak)
    finally:
        for n, f in saved.items(): setattr(ref, n, f)


def _trajectory(c, init, X, Y, V, schedule, clip, decay_all, dtype, tweak):
    model = ref.GPT(c, V).to(dtype)
    params = ref.lmtrain_names(model)
    with torch.no_grad():
        for name, p in params.items(): p.copy_(init[name].reshape(p.shape))
    if tweak: tweak(model)
    opt = ref.make_optimizer(model, c, decay_all=decay_all)
    steps = [ref.train_step(model, opt, c, it, X[it], Y[it], schedule=schedule, clip=clip)
             for it in range(len(X))]
    return steps, {n: p.detach().clone() for n, p in params.items()}


# Knock-outs of the attention options (the bugs the C test must catch there)
_features, _log_lambda = ref.delta_features, ref.data_log_lambda


def q_not_normalised(fq, fk, c): return fq, _features(fq, fk, c)[1]
def k_not_normalised(fq, fk, c): return _features(fq, fk, c)[0], fk


def l2_eps_outside(fq, fk, c):  # |phi| + eps instead of sqrt(sum phi^2 + eps)
    return fq / (fq.norm(dim=-1, keepdim=True) + c['eps']), fk / (fk.norm(dim=-1, keepdim=True) + c['eps'])


def gate_one_token_late(theta, gate):  # lambda_t from x_{t-1} (lambda_0 from a zero gate projection)
    return _log_lambda(theta, torch.cat([torch.zeros_like(gate[..., :1]), gate[..., :-1]], dim=-1))


def gate_weight_frozen(model):  # no gradient reaches w_h (weight decay still shrinks it, as in lmtrain)
    for block in model.h:
        a = block.attn
        rows = [3 * a.dh * a.H + h * a.n_aux + a.n_aux - 1 for h in range(a.H)]
        a.qkv.weight.register_hook(lambda g, rows=rows: g.index_fill(0, torch.tensor(rows), 0.0))


def lmtrain_shape(name, p):
    return [p.numel()] if p.dim() == 1 or name.endswith('attn.theta') else list(p.shape)


def deviation(steps, final, gsteps, gfinal):
    """The C test's measures: worst per-tensor max|a-b|/max|b|, and the worst relative
    error of the loss and of the gradient norm over the steps."""
    worst = max(((a.double() - gfinal[n]).abs().max() / gfinal[n].abs().max().clamp(min=1e-30)).item()
                for n, a in final.items())
    rel = lambda i: max(abs(s[i] - g[i]) / abs(g[i]) for s, g in zip(steps, gsteps))
    return worst, rel(0), rel(1)


def read_raw(path):
    """A safetensors file's metadata and name -> (dtype, shape, raw bytes)."""
    raw = open(path, 'rb').read()
    n = struct.unpack('<Q', raw[:8])[0]
    head = json.loads(raw[8:8 + n])
    meta = head.pop('__metadata__', {})
    return meta, {k: (v['dtype'], v['shape'], raw[8 + n + v['data_offsets'][0]:8 + n + v['data_offsets'][1]])
                  for k, v in head.items()}


def changed_from(path, tensors, meta):
    """What differs between the existing file and the new data, for the variants (and
    batches) the existing file holds: a list of names, empty when all is byte-identical."""
    dt = {torch.float32: 'F32', torch.float64: 'F64', torch.int32: 'I32'}
    old_meta, old = read_raw(path)
    names = [v for v in old_meta.get('variants', '').split(',') if v]
    bad = [v + '.config' for v in names if old_meta.get(v + '.config') != meta.get(v + '.config')]
    for k, (dtype, shape, data) in old.items():
        if k.startswith('batches.') or k.split('/')[0] in names:
            new = tensors.get(k)
            if new is None or (dt[new[1].dtype], new[0], new[1].contiguous().numpy().tobytes()) != (dtype, shape, data):
                bad.append(k)
    return bad


def write_safetensors(path, tensors, meta):
    dt = {torch.float32: 'F32', torch.float64: 'F64', torch.int32: 'I32'}
    head, blobs, off = {'__metadata__': meta}, [], 0
    for name, (shape, t) in tensors.items():
        b = t.contiguous().numpy().tobytes()
        head[name] = {'dtype': dt[t.dtype], 'shape': shape, 'data_offsets': [off, off + len(b)]}
        blobs.append(b); off += len(b)
    h = json.dumps(head, separators=(',', ':')).encode()
    h += b' ' * (-len(h) % 8)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
    os.replace(tmp, path)


def main():
    a = sys.argv[1:]
    data = a[a.index('--data') + 1] if '--data' in a else 'data/tinyshakespeare.txt'
    out = a[a.index('--out') + 1] if '--out' in a else os.path.join(os.path.dirname(__file__), 'golden.safetensors')
    X, Y, V = batches(data)
    tensors = {'batches.inputs': ([STEPS, X.shape[1], X.shape[2]], X.to(torch.int32)),
               'batches.targets': ([STEPS, Y.shape[1], Y.shape[2]], Y.to(torch.int32))}
    meta = {'format': 'lmtrain-golden 1', 'variants': ','.join(n for n, _ in VARIANTS), 'steps': str(STEPS),
            'batch_size': str(X.shape[1]), 'block_size': str(X.shape[2])}
    ok = True
    for index, (name, overrides) in enumerate(VARIANTS):
        text = ini_text(overrides)
        c = ref.load_cfg_text(text)
        torch.manual_seed(SEED + 1 + index)  # each variant its own init: adding one changes no other
        model = ref.GPT(c, V)  # float32 init (SPEC: normal(0, 0.02), residual projections 0.02/sqrt(2 layers))
        init = {n: p.detach().clone() for n, p in ref.lmtrain_names(model).items()}
        steps, final = trajectory(c, init, X, Y, V)
        meta[name + '.config'] = text
        for n, p in init.items():
            tensors[f'{name}/init/{n}'] = (lmtrain_shape(n, p), p.float())
        for n, p in final.items():
            tensors[f'{name}/final/{n}'] = (lmtrain_shape(n, p), p.float())
        for i, key in enumerate(('loss', 'grad_norm', 'lr')):
            tensors[f'{name}/{key}'] = ([STEPS], torch.tensor([s[i] for s in steps], dtype=torch.float64))

        clipped = sum(s[1] > c['grad_clip'] for s in steps)
        print(f"{name}: loss {steps[0][0]:.5f} -> {steps[-1][0]:.5f}; grad norm "
              f"{min(s[1] for s in steps):.3f} .. {max(s[1] for s in steps):.3f}, clipped on {clipped} of {STEPS} steps")
        if not 0 < clipped < STEPS:
            print(f"  clipping must engage on some steps and not on others"); ok = False
        # Conditioning: the same recipe in float32 (as lmtrain computes) must stay
        # well inside the C test's tolerances, or a correct lmtrain could fail it.
        fs, ff = trajectory(c, init, X, Y, V, dtype=torch.float32)
        dp, dl, dn = deviation(fs, ff, steps, final)
        well = dp * KNOCKOUT_MARGIN <= PARAM_TOL and max(dl, dn) * KNOCKOUT_MARGIN <= LOSS_TOL
        print(f"  float32 run                           params {dp:.2e}  loss {dl:.2e}  grad norm {dn:.2e}  "
              f"{'ok' if well else 'ILL-CONDITIONED'}")
        ok = ok and well
        knockouts = [('linear schedule', dict(schedule=lr_linear), c),
                     ('no clipping', dict(clip=False), c),
                     ('weight decay on everything', dict(decay_all=True), c)]
        if not c['decay_learnable']:
            knockouts.append(('decay_learnable ignored', {}, dict(c, decay_learnable=True)))
        if c['key_norm'] == 'l2':
            knockouts += [('q not L2-normalised', dict(patch={'delta_features': q_not_normalised}), c),
                          ('k not L2-normalised', dict(patch={'delta_features': k_not_normalised}), c)]
            if c['feature_map'] != 'identity':  # (a sum of signed features is no norm)
                knockouts.append(('key_norm = sum instead of l2', {}, dict(c, key_norm='sum')))
            if c['eps'] >= 1e-3:  # (at 1e-6 it moves nothing the C test can see)
                knockouts.append(('L2 norm |phi| + eps', dict(patch={'delta_features': l2_eps_outside}), c))
        if c['data_decay']:
            knockouts += [('gate one token late', dict(patch={'data_log_lambda': gate_one_token_late}), c),
                          ('gate weight untrained', dict(tweak=gate_weight_frozen), c),
                          ('gate bias theta untrained', {}, dict(c, decay_learnable=False))]
        for what, kw, kc in knockouts:
            ks, kf = trajectory(kc, init, X, Y, V, **kw)
            dp, dl, dn = deviation(ks, kf, steps, final)
            enough = not dp < KNOCKOUT_MARGIN * PARAM_TOL  # (a NaN is caught too: the C test asks e <= tol)
            print(f"  knock-out {what:27s} params {dp:.2e}  loss {dl:.2e}  grad norm {dn:.2e}  "
                  f"{'ok' if enough else 'TOO SMALL'}")
            ok = ok and enough
    if not ok:
        sys.exit("make_golden: some part of the recipe does not act strongly enough; file not written")
    if os.path.exists(out):
        bad = changed_from(out, tensors, meta)
        print(f"existing variants in {out}: " + (f"{len(bad)} tensors or configurations changed, e.g. {bad[:4]}"
                                                   if bad else "byte-identical"))
        if bad and '--replace' not in a:
            sys.exit("make_golden: the existing variants' data would change; file not written (--replace to write it)")
    write_safetensors(out, tensors, meta)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == '__main__':
    main()
