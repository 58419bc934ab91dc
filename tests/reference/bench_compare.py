#!/usr/bin/env python3
"""lmtrain against PyTorch on the same machine, in one run: training tokens/s
on the baby model for each attention kind.

    /usr/bin/python3 tests/reference/bench_compare.py [--lmtrain ./lmtrain] [--rounds 5]
        [--kinds softmax,linear,linear_decay,delta] [--threads 1] [--seconds 3] [--blas-dir DIR] [--no-bf16]
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
masked form, what a PyTorch user writes for a 64-token context; delta the
token recurrence as a loop over positions (the reference's own form; a
chunked WY form in PyTorch would be faster and is not what it has). The lmtrain
side is `lmtrain bench --part train --sizes baby --kinds K` (the same step on
the same model and batch shape).

Where the CPU has AVX-512 BF16, lmtrain is also timed with `--precision bf16`
([train] precision = bf16: the matmuls' operands rounded to bfloat16, fp32
accumulation) right after its fp32 measurement, and printed as extra columns:
lmtrain bf16 against the same PyTorch figures, which stay fp32 (PyTorch's
bf16 on CPU is another experiment; this one compares lmtrain's two paths with
one fixed reference), and bf16 against lmtrain fp32. On a CPU without it the
script says so and leaves the columns out (--no-bf16 leaves them out anyway).

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


def lmtrain_cmd(exe, kind, threads, seconds, out, precision):
    return [exe, 'bench', '--part', 'train', '--sizes', 'baby', '--kinds', kind, '--threads', str(threads),
            '--min-seconds', str(seconds), '--precision', precision, '--out', out]


def bf16_missing(exe, out):
    """Why `lmtrain bench --precision bf16` is refused here (lmtrain's own message), or None if it runs."""
    cmd = lmtrain_cmd(exe, 'linear', 1, 0.01, os.path.join(out, 'bf16_check'), 'bf16')
    cmd[cmd.index('--part') + 1] = 'peak'  # the precision check alone, not a training measurement
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 2 and 'AVX-512 BF16' in r.stderr:
        return r.stderr.strip()
    if r.returncode != 0:
        sys.exit(f'bench_compare: {" ".join(cmd)} failed:\n{r.stderr}')
    return None


def lmtrain_rate(exe, kind, threads, seconds, out, precision='fp32'):
    """(tokens/s wall, tokens per CPU-second, ceiling) from `lmtrain bench --part train` on the baby
    model; the ceiling is the tokens per CPU-second of the same FLOPs at one core's full fp32 FMA rate
    (bench's own peak reading, per thread): no fp32 code doing these FLOPs exceeds it (the products
    with the weights, which any implementation does, are 91-94 % of them at the baby model)."""
    cmd = lmtrain_cmd(exe, kind, threads, seconds, out, precision)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f'bench_compare: {" ".join(cmd)} failed:\n{r.stderr}')
    with open(os.path.join(out, 'throughput.csv')) as f:
        row = next(csv.DictReader(f))
    tokens = float(row['block_size']) * float(row['batch_size'])
    flops = float(row['flops_per_token_dense']) + float(row['flops_per_token_attention'])
    ceiling = float(row['peak_gflops']) * 1e9 / threads / flops
    return float(row['tokens_per_s']), tokens / float(row['cpu_s_median']), ceiling


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lmtrain', default=os.path.join(ROOT, 'lmtrain'))
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--kinds', default='softmax,linear,linear_decay,delta')
    ap.add_argument('--threads', type=int, default=1, help='threads for both (default 1)')
    ap.add_argument('--seconds', type=float, default=3.0, help='timed seconds per measurement (default 3)')
    ap.add_argument('--blas-dir', help='a folder holding the libblas.so.3 PyTorch should load')
    ap.add_argument('--no-bf16', action='store_true', help='leave out lmtrain with --precision bf16')
    a = ap.parse_args()
    if a.blas_dir and os.environ.get('BENCH_COMPARE_BLAS') != a.blas_dir:
        if not os.path.isfile(os.path.join(a.blas_dir, 'libblas.so.3')):
            sys.exit(f'bench_compare: no libblas.so.3 in {a.blas_dir}')
        env = dict(os.environ, BENCH_COMPARE_BLAS=a.blas_dir, OPENBLAS_NUM_THREADS=str(a.threads),
                   LD_LIBRARY_PATH=a.blas_dir + os.pathsep + os.environ.get('LD_LIBRARY_PATH', ''))
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    global torch, ref
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import blas_anchor
    # OpenBLAS on lmtrain's instruction set, set before the library loads with
    # torch: by CPU model alone it can fall back to SSE kernels on a CPU newer
    # than itself (blas_anchor.py), and the ratio would measure that
    if 'OPENBLAS_CORETYPE' not in os.environ and os.access(a.lmtrain, os.X_OK):
        coretype = blas_anchor.CORETYPE.get(blas_anchor.running_path(a.lmtrain))
        if coretype:
            os.environ['OPENBLAS_CORETYPE'] = coretype
    # torch.set_num_threads does not reach Debian's OpenBLAS, which otherwise
    # runs each product on every core: measured, PyTorch's "1 thread" then
    # spent 2 CPU-seconds a second on an idle 2-core machine
    os.environ.setdefault('OPENBLAS_NUM_THREADS', str(a.threads))
    os.environ.setdefault('OMP_NUM_THREADS', str(a.threads))
    import torch
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
    core = blas_anchor.blas_core()[1]
    print(f'PyTorch matmul 768 x 128 x 512: {mm_gflops:.1f} GFLOP/s per CPU-second'
          + (f'; OpenBLAS core {core}' if core else '')
          + (f' (OPENBLAS_CORETYPE={os.environ["OPENBLAS_CORETYPE"]})' if 'OPENBLAS_CORETYPE' in os.environ else ''))
    # ratios[k][name]: per round; 'w'/'c' lmtrain fp32 / torch (wall, CPU), 'bw'/'bc' lmtrain bf16 / torch,
    # 'bl' lmtrain bf16 / lmtrain fp32 per CPU-second
    # 'top': the fp32 ceiling (lmtrain_rate) / torch per CPU-second, the largest ratio the fp32 FMA peak allows
    ratios = {k: {n: [] for n in ('w', 'c', 'bw', 'bc', 'bl', 'top')} for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        why = 'left out (--no-bf16)' if a.no_bf16 else bf16_missing(a.lmtrain, tmp)
        bf16 = why is None
        print('lmtrain bf16 ([train] precision = bf16, measured right after its fp32; PyTorch stays fp32): ' +
              ('measured' if bf16 else f'not measured: {why}'))
        head = (f'{"round":>5} {"kind":<13} {"torch tok/s":>12} {"lmtrain tok/s":>14} {"ratio":>6}   '
                f'{"torch tok/cpu-s":>15} {"lmtrain tok/cpu-s":>17} {"ratio":>6}')
        if bf16:
            head += f'   {"bf16 tok/s":>10} {"ratio":>6} {"bf16 tok/cpu-s":>14} {"ratio":>6} {"/fp32":>6}'
        print(head)
        for rnd in range(1, a.rounds + 1):
            for k in kinds:
                tw, tc, _ = torch_rate(k, a.seconds)
                lw, lc, top = lmtrain_rate(a.lmtrain, k, a.threads, a.seconds, tmp)
                r = ratios[k]
                r['w'].append(lw / tw)
                r['c'].append(lc / tc)
                r['top'].append(top / tc)
                line = (f'{rnd:>5} {k:<13} {tw:>12.0f} {lw:>14.0f} {lw / tw:>5.2f}x   {tc:>15.0f} {lc:>17.0f} '
                        f'{lc / tc:>5.2f}x')
                if bf16:
                    bw, bc, _ = lmtrain_rate(a.lmtrain, k, a.threads, a.seconds, tmp, 'bf16')
                    r['bw'].append(bw / tw)
                    r['bc'].append(bc / tc)
                    r['bl'].append(bc / lc)
                    line += f'   {bw:>10.0f} {bw / tw:>5.2f}x {bc:>14.0f} {bc / tc:>5.2f}x {bc / lc:>5.2f}x'
                print(line, flush=True)

    def med(v):
        return f'{statistics.median(v):.2f}x ({min(v):.2f} .. {max(v):.2f})'
    print('\nmedian ratio lmtrain / PyTorch over the rounds (min .. max):')
    for k in kinds:
        r = ratios[k]
        print(f'  {k:<13} tokens/s {med(r["w"])}   tokens per CPU-second {med(r["c"])}')
    print('the fp32 ceiling: the ratio lmtrain would reach with the step\'s FLOPs at one core\'s full FMA\n'
          'rate (100 % busy; bench\'s peak reading), per CPU-second, over the rounds (min .. max):')
    for k in kinds:
        print(f'  {k:<13} {med(ratios[k]["top"])}')
    if bf16:
        print('lmtrain bf16 / PyTorch fp32, and lmtrain bf16 / lmtrain fp32 (tokens per CPU-second):')
        for k in kinds:
            r = ratios[k]
            print(f'  {k:<13} tokens/s {med(r["bw"])}   tokens per CPU-second {med(r["bc"])}   '
                  f'bf16 / fp32 {med(r["bl"])}')
    print(f'load average at end {os.getloadavg()[0]:.1f}')


if __name__ == '__main__':
    main()
