#!/usr/bin/env python3
"""OpenBLAS's rate on the output layer's products, through numpy, one thread: the other half of
bench/output_layer.sh, which sets these figures beside attnseq's (attnseq_train_flops --output-layer).

    /usr/bin/python3 bench/sgemm.py [--H 256,512] [--V 8000,10000] [--shapes step_B1,...] [--budget 0.3]

Shapes (M x K by K x N, the names attnseq_train_flops --output-layer gives the same products; the
operands laid out as attnseq holds them):
  step_B1, step_B4  X (B, H) @ W.T, W (V, H) row-major: (B, H) by (H, V), one decoder step's logits for
                    1 row or a beam of 4. For one row numpy's matmul calls BLAS's sgemv, not sgemm.
  train_fwd         F (256, H) @ W.T: (256, H) by (H, V), the logits of one chunk of 256 rows
  train_dX          dL (256, V) @ W: (256, V) by (V, H)
  train_dW          dL.T @ F: (V, 256) by (256, H); numpy writes the product (sgemm's beta = 0), where
                    attnseq adds it to dW: one more pass over V x H floats there
Every product writes into an array made beforehand (np.matmul(a, b, out=c)), so no allocation is timed.
Per shape: one call to warm up and to size a repetition (as many calls as take about 5 ms), then
repetitions until --budget seconds and at least 5; the median per call of wall clock
(time.perf_counter) and of this thread's CPU time (time.thread_time). GFLOP/s = 2 M N K / time.

It prints which BLAS numpy runs on (numpy.show_config(), and the library actually loaded, asked for its
OpenBLAS configuration, kernel core and thread count) and one RESULT line per shape. OPENBLAS_NUM_THREADS=1
is set here, before numpy is imported, so that OpenBLAS starts one thread, as attnseq's kernels run on one.

OpenBLAS picks its kernels by the CPU's model number, and a model newer than the library (Debian 12's
0.3.21 on a Xeon of model 207) falls back to its oldest x86-64 kernels, Prescott's (SSE3): on such a
machine with AVX-512 that made sgemm several times slower than the SkylakeX kernels the same library holds.
So when OpenBLAS chose a core without AVX2 on a CPU that has it, and OPENBLAS_CORETYPE is not set, this
script runs itself again with OPENBLAS_CORETYPE=SkylakeX (AVX-512) or Haswell (AVX2), and says so;
--openblas-own-core keeps OpenBLAS's own choice.
"""
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read once, when OpenBLAS loads: before numpy is imported

import argparse  # noqa: E402
import contextlib  # noqa: E402
import ctypes  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

SHAPES = ("step_B1", "step_B4", "train_fwd", "train_dX", "train_dW")
TRAIN_ROWS = 256  # src/train/backprop.cpp's kChunk: the output layer's rows per product in training
# OpenBLAS's x86-64 cores whose kernels have no AVX2 (openblas_get_corename() spells them so).
CORES_WITHOUT_AVX2 = {"prescott", "core2", "penryn", "dunnington", "nehalem", "sandybridge", "atom", "katmai",
                      "coppermine", "northwood", "banias", "opteron", "opteron_sse3", "barcelona", "bobcat",
                      "bulldozer", "piledriver", "steamroller", "excavator", "generic", "unknown"}


def blas_info():
    """(name, description, threads, core): which BLAS numpy's products run on, OpenBLAS's thread count and
    kernel core (None for another BLAS). numpy.show_config() names what numpy was
    linked against; Debian's numpy links the generic libblas.so.3, which update-alternatives points at
    OpenBLAS or at the reference BLAS, so the library mapped into this process is asked as well."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        np.show_config()
    cfg = out.getvalue()
    m = re.search(r"blas_opt_info:\s*\n(?:\s+\S.*\n)*?\s+libraries = (\[.*?\])", cfg)
    linked = f"numpy {np.__version__}, numpy.show_config(): blas_opt_info libraries {m.group(1) if m else '(none)'}"
    with open("/proc/self/maps") as f:
        libs = sorted({line.split()[-1] for line in f if re.search(r"/lib[^/]*blas[^/]*\.so", line)})
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            config = lib.openblas_get_config().decode()
            core = lib.openblas_get_corename().decode()
            threads = lib.openblas_get_num_threads()
        except (OSError, AttributeError):
            continue
        return ("OpenBLAS", f"{linked}; loaded {os.path.realpath(path)}: {config}, core {core}, {threads} thread(s)",
                threads, core)
    real = ", ".join(os.path.realpath(p) for p in libs) or "no BLAS library mapped"
    return "not-OpenBLAS", f"{linked}; loaded {real} (not OpenBLAS: no openblas_get_config)", None, None


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def operands(name, H, V, rng):
    """(M, K, N, a, b, out) for the product a @ b -> out, laid out as attnseq holds its operands."""
    def rand(*shape):
        return rng.uniform(-0.1, 0.1, shape).astype(np.float32)
    W = rand(V, H)
    if name.startswith("step_B"):
        B = int(name[len("step_B"):])
        return B, H, V, rand(B, H), W.T, np.empty((B, V), np.float32)
    if name == "train_fwd":
        return TRAIN_ROWS, H, V, rand(TRAIN_ROWS, H), W.T, np.empty((TRAIN_ROWS, V), np.float32)
    if name == "train_dX":
        return TRAIN_ROWS, V, H, rand(TRAIN_ROWS, V), W, np.empty((TRAIN_ROWS, H), np.float32)
    dL = rand(TRAIN_ROWS, V)  # train_dW
    return V, TRAIN_ROWS, H, dL.T, rand(TRAIN_ROWS, H), np.empty((V, H), np.float32)


def time_median(f, budget):
    """Per call: median wall-clock and thread CPU µs over repetitions; and the repetitions, calls per one."""
    t = time.perf_counter()
    f()
    calls = max(1, int(0.005 / max(time.perf_counter() - t, 1e-9)))
    wall, cpu = [], []
    t0 = time.perf_counter()
    while len(wall) < 5 or time.perf_counter() - t0 < budget:
        c0, w0 = time.thread_time(), time.perf_counter()
        for _ in range(calls):
            f()
        w1, c1 = time.perf_counter(), time.thread_time()
        wall.append((w1 - w0) * 1e6 / calls)
        cpu.append((c1 - c0) * 1e6 / calls)
    return statistics.median(wall), statistics.median(cpu), len(wall), calls


def sizes(text, flag):
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        out = []
    if not out or min(out) < 1:
        sys.exit(f"sgemm.py: {flag} {text}: give positive whole numbers separated by commas")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--H", default="256,512", help="comma-separated hidden sizes")
    p.add_argument("--V", default="8000,10000", help="comma-separated vocabulary sizes")
    p.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated, of: " + ", ".join(SHAPES))
    p.add_argument("--budget", type=float, default=0.3, help="seconds of repetitions per shape")
    p.add_argument("--coretype-fix", action="store_true",
                   help="print the OPENBLAS_CORETYPE this CPU needs (empty when OpenBLAS chose well) and exit: "
                        "bench/train.sh sets it for the PyTorch twin, whose products OpenBLAS runs too")
    p.add_argument("--openblas-own-core", action="store_true",
                   help="keep the kernels OpenBLAS chose, even without AVX2 on a CPU that has it")
    a = p.parse_args()
    shapes = a.shapes.split(",")
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        sys.exit(f"sgemm.py: --shapes: unknown {', '.join(unknown)} (known: {', '.join(SHAPES)})")

    name, describe, threads, core = blas_info()
    flags = cpu_flags()
    slow = core and core.lower() in CORES_WITHOUT_AVX2 and "avx2" in flags and "OPENBLAS_CORETYPE" not in os.environ
    better, isa = ("SkylakeX", "AVX-512") if "avx512f" in flags else ("Haswell", "AVX2")
    if a.coretype_fix:
        print(better if slow else "")
        return
    if slow and not a.openblas_own_core:
        print(f"# OpenBLAS chose its {core} kernels (no AVX2) on a CPU with {isa} (a CPU model it does not know): "
              f"running again with OPENBLAS_CORETYPE={better}", flush=True)
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, "OPENBLAS_CORETYPE": better})
    chosen = f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']}" if "OPENBLAS_CORETYPE" in os.environ else "own"
    print(f"# blas: {describe}")
    print(f"BLAS name={name} core={core} core_choice={chosen} threads={threads}")
    if threads not in (None, 1):
        print(f"# warning: OpenBLAS runs {threads} threads although OPENBLAS_NUM_THREADS=1 was set", file=sys.stderr)
    rng = np.random.default_rng(20261203)
    for H in sizes(a.H, "--H"):
        for V in sizes(a.V, "--V"):
            for shape in shapes:
                M, K, N, x, y, out = operands(shape, H, V, rng)
                us, cpu_us, reps, calls = time_median(lambda: np.matmul(x, y, out=out), a.budget)
                flop = 2.0 * M * N * K
                routine = "sgemv" if M == 1 else "sgemm"
                print(f"RESULT what=output_layer engine=openblas routine={routine} shape={shape} H={H} V={V} "
                      f"M={M} K={K} N={N} us={us:.2f} cpu_us={cpu_us:.2f} gflops={flop / (us * 1e3):.2f} "
                      f"cpu_gflops={flop / (cpu_us * 1e3):.2f} reps={reps} calls={calls}", flush=True)


if __name__ == "__main__":
    main()
