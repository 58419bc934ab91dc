#!/usr/bin/env python3
"""lmtrain's products beside a BLAS on the same machine, for each instruction-set path.

    /usr/bin/python3 tests/reference/blas_anchor.py [--lmtrain ./lmtrain] [--rounds 7] [--seconds 0.1]
    (the first half of `make bench-compare`)

Needs numpy (Debian: apt-get install python3-numpy libopenblas0-pthread; the
second makes numpy's libblas.so.3 OpenBLAS). Not part of `make test`.

The shapes are the linear layers of lmtrain's two benchmark models
(src/bench/bench_layers.c: the baby and large models' QKV, FFN up and FFN down)
and their three training products: y = x W^T, dX = dY W and dW = dY^T X.
lmtrain's side is `lmtrain bench --part products` with LMTRAIN_ISA set to each
path the CPU has; the BLAS side times numpy.matmul of the same shapes, one
thread (OPENBLAS_NUM_THREADS=1), per CPU-second. OpenBLAS is held to the same
instruction set as lmtrain's path: OPENBLAS_CORETYPE=SkylakeX (its AVX-512
kernels) beside the avx512 path, Haswell (AVX2) beside the avx2 path. Without
it OpenBLAS picks by CPU model, and a model newer than the library falls back
to old SSE kernels (Debian's 0.3.21 takes an Emerald Rapids Xeon for a
Prescott). The script prints the core OpenBLAS reports, so a setting that did
not take is seen. Each lmtrain product runs in
the form training runs it: dX stored, as numpy's is; dW added into the
weights' gradient, where numpy (no accumulating form) overwrites its output:
one more read of a (out, in) output for lmtrain.

The two sides alternate round by round (BLAS, lmtrain, lmtrain, BLAS, ...:
each round one process per side, its 18 products in turn), and each product's
figure is its median over --rounds rounds, so a load that comes and goes on a
shared machine falls on both sides alike. A ratio near 1 is still inside the
noise: run it twice.
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile, time

# src/bench/bench_layers.c's BENCH_LAYERS, in its order
LAYERS = [('baby', 'qkv', 768, 128, 384), ('baby', 'ffn up', 768, 128, 512), ('baby', 'ffn down', 768, 512, 128),
          ('large', 'qkv', 2048, 384, 1152), ('large', 'ffn up', 2048, 384, 1536),
          ('large', 'ffn down', 2048, 1536, 384)]
PRODUCTS = ['forward', 'dX', 'dW']


def blas_core():
    """(library path, core name) of the BLAS numpy loaded, from this process's maps."""
    import ctypes
    with open('/proc/self/maps') as f:
        libs = sorted({l.split()[-1] for l in f if 'blas' in l.lower() and '.so' in l})
    for lib in libs:
        try:
            fn = ctypes.CDLL(lib).openblas_get_corename
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_char_p
        return lib, fn().decode()
    return (libs[0] if libs else 'none found'), None


def numpy_side(rounds, seconds):
    """Runs in a child with the BLAS environment set: prints a JSON of GFLOP/s per (layer, product)."""
    import numpy as np
    rng = np.random.default_rng(1)
    bufs = []
    for _, _, T, C, OC in LAYERS:
        f = lambda *s: (rng.random(s, dtype=np.float32) - 0.5)
        bufs.append(dict(x=f(T, C), w=f(OC, C), y=f(T, OC), dy=f(T, OC), dx=f(T, C), dw=f(OC, C)))
    calls = {
        'forward': lambda b: np.matmul(b['x'], b['w'].T, out=b['y']),
        'dX': lambda b: np.matmul(b['dy'], b['w'], out=b['dx']),
        'dW': lambda b: np.matmul(b['dy'].T, b['x'], out=b['dw']),
    }
    t = {(l, p): [] for l in range(len(LAYERS)) for p in PRODUCTS}
    for _ in range(rounds):
        for l, b in enumerate(bufs):
            for p in PRODUCTS:
                calls[p](b)  # warm
                reps, t0 = 0, time.process_time()
                while True:
                    calls[p](b)
                    reps += 1
                    dt = time.process_time() - t0
                    if dt >= seconds:
                        break
                t[(l, p)].append(dt / reps)
    lib, core = blas_core()
    out = {'library': lib, 'core': core, 'numpy': np.__version__, 'gflops': {}}
    for (l, p), ts in t.items():
        _, _, T, C, OC = LAYERS[l]
        out['gflops'][f'{l}/{p}'] = 2.0 * T * C * OC / statistics.median(ts) * 1e-9
    print(json.dumps(out))


def run_numpy(coretype, rounds, seconds):
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1')
    env.pop('OPENBLAS_CORETYPE', None)
    if coretype:
        env['OPENBLAS_CORETYPE'] = coretype
    r = subprocess.run([sys.executable, os.path.abspath(__file__), '--numpy-child', '--rounds', str(rounds),
                        '--seconds', str(seconds)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'blas_anchor: the numpy side failed:\n{r.stderr.strip()}')
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_lmtrain(exe, isa, rounds):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, LMTRAIN_ISA=isa)
        r = subprocess.run([exe, 'bench', '--part', 'products', '--rounds', str(rounds), '--out', d], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f'blas_anchor: {exe} bench --part products (LMTRAIN_ISA={isa}) failed:\n{r.stderr.strip()}')
        with open(os.path.join(d, 'products.csv')) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(d, 'peak.csv')) as f:
            peak = next(r for r in csv.DictReader(f) if r['threads'] == '1')
    return {f"{[(L[0], L[1]) for L in LAYERS].index((r['model'], r['layer']))}/{r['product']}": float(r['gflops'])
            for r in rows}, peak


# OpenBLAS's kernels for each of lmtrain's paths (bench_compare.py uses it too)
CORETYPE = {'avx512': 'SkylakeX', 'avx2': 'Haswell'}


def running_path(exe):
    """The path `exe` runs here (LMTRAIN_ISA included), from its --version line "kernels: avx512 (...)"."""
    v = subprocess.run([exe, '--version'], capture_output=True, text=True).stdout
    line = next((l for l in v.splitlines() if l.startswith('kernels:')), 'kernels: unknown')
    return line.split()[1]


def paths_of(exe):
    """The paths this CPU can run, widest first, from `lmtrain --version`."""
    v = subprocess.run([exe, '--version'], capture_output=True, text=True).stdout
    line = next((l for l in v.splitlines() if 'this CPU allows' in l), '')
    have = [p for p in ('avx512', 'avx2', 'portable') if p in line.split('allows', 1)[-1]]
    return [p for p in have if p != 'portable'] or have or ['portable']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lmtrain', default='./lmtrain')
    ap.add_argument('--rounds', type=int, default=7, help='rounds of each side, alternating')
    ap.add_argument('--seconds', type=float, default=0.1)
    ap.add_argument('--numpy-child', action='store_true', help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.rounds < 1 or a.seconds <= 0:
        sys.exit('blas_anchor: --rounds must be >= 1 and --seconds > 0')
    if a.numpy_child:
        numpy_side(a.rounds, a.seconds)
        return
    try:
        import numpy  # noqa: F401  (only to fail early with the package's name)
    except ImportError:
        sys.exit('blas_anchor: needs numpy (Debian: apt-get install python3-numpy libopenblas0-pthread)')
    if not os.access(a.lmtrain, os.X_OK):
        sys.exit(f'blas_anchor: {a.lmtrain} is not an executable (run make first)')
    print('== lmtrain\'s products beside numpy\'s BLAS, 1 thread, GFLOP/s per CPU-second (median of '
          f'{a.rounds} rounds) ==')
    for isa in paths_of(a.lmtrain):
        coretype = CORETYPE.get(isa)
        theirs_r, ours_r, peak = [], [], None
        for r in range(a.rounds):
            for side in (('blas', 'ours') if r % 2 == 0 else ('ours', 'blas')):
                if side == 'blas':
                    blas = run_numpy(coretype, 1, a.seconds)  # its library and core: the same every round
                    theirs_r.append(blas.pop('gflops'))
                else:
                    ours_1, peak_1 = run_lmtrain(a.lmtrain, isa, 1)
                    ours_r.append(ours_1)
                    peak = peak or peak_1
        # each product's median over the rounds, per side
        theirs = {k: statistics.median(x[k] for x in theirs_r) for k in theirs_r[0]}
        ours = {k: statistics.median(x[k] for x in ours_r) for k in ours_r[0]}
        p1 = float(peak['gflops_cpu_time'])
        print(f'\npath {isa} (FMA peak {p1:.1f} GFLOP/s, 1 thread); BLAS: {blas["library"]}, core '
              f'{blas["core"] or "unknown (not OpenBLAS?)"}{" (OPENBLAS_CORETYPE=" + coretype + ")" if coretype else ""}')
        print(f'  {"model":6} {"layer":9} {"product":8} {"lmtrain":>8} {"BLAS":>8} {"ratio":>6}')
        ratios = []
        for key, th in theirs.items():
            l, prod = key.split('/')
            m, name = LAYERS[int(l)][:2]
            r = ours[key] / th
            ratios.append(r)
            print(f'  {m:6} {name:9} {prod:8} {ours[key]:8.1f} {th:8.1f} {r:6.2f}')
        geo = statistics.geometric_mean(ratios)
        at_least = sum(r >= 1.0 for r in ratios)
        print(f'  lmtrain / BLAS: geometric mean {geo:.2f}, range {min(ratios):.2f}-{max(ratios):.2f}; '
              f'{at_least} of {len(ratios)} products at least the BLAS\'s rate; '
              f'BLAS {statistics.mean(theirs.values()) / p1 * 100:.0f} % of the peak on average, '
              f'lmtrain {statistics.mean(ours.values()) / p1 * 100:.0f} %')


if __name__ == '__main__':
    main()
