#!/usr/bin/env python3
"""lmtrain against PyTorch on the same machine, in one run: training tokens/s
on the baby model for each attention kind.

    /usr/bin/python3 tests/reference/bench_compare.py [--lmtrain ./lmtrain] [--rounds 5]
        [--kinds softmax,linear,linear_decay] [--threads 1] [--seconds 3] [--blas-dir DIR]
    (or `make bench-compare`, options in BENCH_COMPARE_ARGS)

Needs PyTorch (Debian: apt-get install python3-torch); not part of `make test`.

Which BLAS PyTorch runs on matters more than anything else here. Debian's
python3-torch calls the system libblas.so.3, which is the slow reference
BLAS unless an optimised one is installed; the script prints the library it
loaded. --blas-dir DIR puts DIR first on the library path (the script
re-executes itself with LD_LIBRARY_PATH set), so an OpenBLAS can be used
without installing it system-wide:
    apt-get download libopenblas0-pthread && dpkg -x libopenblas0-pthread_*.deb /tmp/openblas
    ... --blas-dir /tmp/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread

The PyTorch side is torch_reference.py's model (written from SPEC section 4,
not from lmtrain's C code): the baby model of configs/<kind>.ini, one full
training step = forward, backward, gradient-norm clipping, AdamW, on a fixed
batch of random tokens (12 x 64), eager mode. Its linear kinds use the naive
masked form, what a PyTorch user writes for a 64-token context. The lmtrain
side is `lmtrain bench --part train --sizes baby --kinds K` (the same step on
the same model and batch shape).

The machine may be shared, so the two run one after the other, kind by kind,
interleaved over several rounds, and the ratio is taken within a round (both
sides saw about the same load); the median over rounds is the figure to
quote. Both wall-clock tokens/s and tokens per CPU-second are printed: the
second does not count time slices other processes took, so it is the steadier
of the two on a busy machine.
"""
import argparse, csv, os, statistics, subprocess, sys, tempfile, time

torch = ref = None  # imported in main(), after the library path is settled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOCAB = 65  # tiny Shakespeare's characters, as lmtrain bench uses


def torch_rate(kind, seconds):
    """(tokens/s wall, tokens per CPU-second, steps) of PyTorch training steps on the baby model."""
    c = ref.load_cfg(os.path.join(ROOT, 'configs', f'{kind}.ini'))
    torch.manual_seed(1)
    model = ref.GPT(c, VOCAB)
    opt = ref.make_optimizer(model, c)
    B, T = c['batch_size'], c['block_size']
    g = torch.Generator().manual_seed(1)
    x = torch.randint(VOCAB, (B, T), generator=g)
    y = torch.randint(VOCAB, (B, T), generator=g)
    it = 0
    for _ in range(3):  # warm-up: allocator, first-touch, lazy init
        ref.train_step(model, opt, c, it, x, y)
        it += 1
    steps, w0, c0 = 0, time.perf_counter(), time.process_time()
    while steps < 5 or time.perf_counter() - w0 < seconds:
        ref.train_step(model, opt, c, it, x, y)
        it += 1
        steps += 1
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return B * T * steps / wall, B * T * steps / cpu, steps


def lmtrain_rate(exe, kind, threads, seconds, out):
    """(tokens/s wall, tokens per CPU-second) from `lmtrain bench --part train` on the baby model."""
    cmd = [exe, 'bench', '--part', 'train', '--sizes', 'baby', '--kinds', kind, '--threads', str(threads),
           '--min-seconds', str(seconds), '--out', out]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f'bench_compare: {" ".join(cmd)} failed:\n{r.stderr}')
    with open(os.path.join(out, 'throughput.csv')) as f:
        row = next(csv.DictReader(f))
    tokens = float(row['block_size']) * float(row['batch_size'])
    return float(row['tokens_per_s']), tokens / float(row['cpu_s_median'])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lmtrain', default=os.path.join(ROOT, 'lmtrain'))
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--kinds', default='softmax,linear,linear_decay')
    ap.add_argument('--threads', type=int, default=1, help='threads for both (default 1)')
    ap.add_argument('--seconds', type=float, default=3.0, help='timed seconds per measurement (default 3)')
    ap.add_argument('--blas-dir', help='a folder holding the libblas.so.3 PyTorch should load')
    a = ap.parse_args()
    if a.blas_dir and os.environ.get('BENCH_COMPARE_BLAS') != a.blas_dir:
        if not os.path.isfile(os.path.join(a.blas_dir, 'libblas.so.3')):
            sys.exit(f'bench_compare: no libblas.so.3 in {a.blas_dir}')
        env = dict(os.environ, BENCH_COMPARE_BLAS=a.blas_dir, OPENBLAS_NUM_THREADS=str(a.threads),
                   LD_LIBRARY_PATH=a.blas_dir + os.pathsep + os.environ.get('LD_LIBRARY_PATH', ''))
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    global torch, ref
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_reference as ref
    if a.rounds < 1 or a.threads < 1 or a.seconds <= 0:
        sys.exit('bench_compare: --rounds and --threads must be >= 1, --seconds > 0')
    if not os.access(a.lmtrain, os.X_OK):
        sys.exit(f'bench_compare: {a.lmtrain} is not an executable (run make first)')
    kinds = a.kinds.split(',')
    torch.set_num_threads(a.threads)
    # the BLAS PyTorch loaded, and what it does with the model's largest product (768 x 128 x 512)
    a_, b_ = torch.randn(768, 128), torch.randn(128, 512)
    a_ @ b_
    c0, reps = time.process_time(), 0
    while reps < 3 or time.process_time() - c0 < 0.5:
        a_ @ b_
        reps += 1
    mm_gflops = 2 * 768 * 128 * 512 * reps / (time.process_time() - c0) * 1e-9
    with open('/proc/self/maps') as f:
        blas = sorted({l.split()[-1] for l in f if 'libblas' in l or 'openblas' in l or 'mkl' in l}) or ['none found']
    print(f'lmtrain vs PyTorch {torch.__version__} (eager, {torch.get_num_threads()} thread(s), BLAS: '
          f'{", ".join(blas)}), baby model (configs/<kind>.ini: L4 H4 C128, T64, B12), {a.rounds} rounds, '
          f'{a.threads} thread(s) each, load average {os.getloadavg()[0]:.1f} at start')
    print(f'PyTorch matmul 768 x 128 x 512: {mm_gflops:.1f} GFLOP/s per CPU-second')
    print(f'{"round":>5} {"kind":<13} {"torch tok/s":>12} {"lmtrain tok/s":>14} {"ratio":>6}   '
          f'{"torch tok/cpu-s":>15} {"lmtrain tok/cpu-s":>17} {"ratio":>6}')
    ratios = {k: ([], []) for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(1, a.rounds + 1):
            for k in kinds:
                tw, tc, _ = torch_rate(k, a.seconds)
                lw, lc = lmtrain_rate(a.lmtrain, k, a.threads, a.seconds, tmp)
                ratios[k][0].append(lw / tw)
                ratios[k][1].append(lc / tc)
                print(f'{rnd:>5} {k:<13} {tw:>12.0f} {lw:>14.0f} {lw / tw:>5.2f}x   {tc:>15.0f} {lc:>17.0f} '
                      f'{lc / tc:>5.2f}x', flush=True)
    print('\nmedian ratio lmtrain / PyTorch over the rounds (min .. max):')
    for k in kinds:
        w, c = ratios[k]
        print(f'  {k:<13} tokens/s {statistics.median(w):.2f}x ({min(w):.2f} .. {max(w):.2f})   '
              f'tokens per CPU-second {statistics.median(c):.2f}x ({min(c):.2f} .. {max(c):.2f})')
    print(f'load average at end {os.getloadavg()[0]:.1f}')


if __name__ == '__main__':
    main()
