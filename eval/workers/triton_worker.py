#!/usr/bin/env python3
"""tilevolve's reference worker: compiles, checks and times a Triton matmul on one GPU.

It speaks the worker protocol of eval/workers/PROTOCOL.md on stdin/stdout (one JSON object
per line; nothing else ever goes to stdout, logs go to stderr). It stays thin: it compiles,
checks and times what it is told. Scheduling, caching, statistics, retries and every
decision live in the C++ controller (tilevolve --backend measured, tilevolve measure).

    python3 triton_worker.py --device 0           # serve the protocol on stdin/stdout
    python3 triton_worker.py --device 0 --self-test  # a few checks, one JSON line, exit status

Works on CUDA (NVIDIA) and ROCm (AMD) builds of PyTorch with Triton. Without torch or Triton
it still answers: hello with status "error" and the import error, so the controller can say
what is missing.
"""

import argparse
import json
import math
import os
import queue
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

WORKER_NAME = "tilevolve-triton-worker"
WORKER_VERSION = "1"
PROTOCOL = 1

# Relative tolerance of the largest error against the fp32 reference, per dtype: bf16 keeps
# 8 mantissa bits (2^-8 = 0.0039), f16 11 (0.0005), f32 with IEEE products is near exact.
TOLERANCE = {"bf16": 2e-2, "f16": 5e-3, "f32": 1e-4}
# Operand buffer sets are rotated so the last-level caches (L2, Infinity Cache) hold none of
# the next run's operands; this many bytes of operands are cycled through at least.
FLUSH_BYTES = 512 << 20
MAX_SETS = 32

IMPORT_ERROR = None
try:
    import torch
except Exception as e:  # noqa: BLE001 - any import failure is reported, not raised
    torch = None
    IMPORT_ERROR = "torch not importable: %s" % (e,)
if torch is not None:
    try:
        import triton
        import triton.language as tl
    except Exception as e:  # noqa: BLE001
        triton = None
        IMPORT_ERROR = "triton not importable: %s" % (e,)


def log(msg):
    sys.stderr.write("triton worker: %s\n" % msg)
    sys.stderr.flush()


# ------------------------------------------------------------------ the kernel

if IMPORT_ERROR is None:
    import inspect

    # Triton 3 spells the product precision input_precision; Triton 2 had allow_tf32.
    _DOT_PARAMS = inspect.signature(tl.dot).parameters
    NEW_DOT_API = "input_precision" in _DOT_PARAMS

    @triton.jit
    def tiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                     s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     GROUP: tl.constexpr, IEEE_F32: tl.constexpr, NEW_API: tl.constexpr):
        # Program ids walk the output in bands of GROUP tile rows (the GROUP_M swizzle), so
        # blocks that run together share columns of B in L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        band = GROUP * tiles_n
        first_row = (pid // band) * GROUP
        rows_here = min(tiles_m - first_row, GROUP)
        tile_m = first_row + (pid % band) % rows_here
        tile_n = (pid % band) // rows_here

        rm = tile_m * BM + tl.arange(0, BM)
        rn = tile_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        # Rows and columns past the edge are folded back (their results are never stored).
        a_rows = rm % M
        b_cols = rn % N
        a_tile = a_ptr + a_rows[:, None] * s_am + rk[None, :] * s_ak
        b_tile = b_ptr + rk[:, None] * s_bk + b_cols[None, :] * s_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            left = K - k0 * BK
            a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
            b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
            if IEEE_F32:
                if NEW_API:
                    acc += tl.dot(a, b, input_precision="ieee")
                else:
                    acc += tl.dot(a, b, allow_tf32=False)
            else:
                acc += tl.dot(a, b)
            a_tile += BK * s_ak
            b_tile += BK * s_bk
        out = acc.to(c_ptr.dtype.element_ty)
        c_tile = c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn
        tl.store(c_tile, out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def torch_dtype(name):
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}.get(name)


def is_out_of_resources(err):
    """Triton's out-of-resources error (its module moved between versions), or a launch that
    asked for more shared memory / registers than the device has."""
    if type(err).__name__ == "OutOfResources":
        return True
    text = str(err).lower()
    return "out of resource" in text or ("shared memory" in text and "exceed" in text)


def is_device_fault(err):
    """An error after which the device (its context) cannot be trusted: the worker exits and
    the controller starts a fresh one."""
    text = str(err).lower()
    return any(k in text for k in ("cuda error", "hip error", "illegal memory", "illegal address",
                                   "device-side assert", "unspecified launch failure",
                                   "hiperror", "cudaerror"))


def relative_error(c, ref):
    """Largest |c - ref| relative to the largest |ref| (the check's one number)."""
    scale = ref.abs().max().item()
    return (c.float() - ref).abs().max().item() / (scale if scale > 0 else 1.0)


class Device:
    """One GPU: its name, its operand buffers, and the measurements."""

    def __init__(self, index, kernel_timeout):
        self.index = index
        self.kernel_timeout = kernel_timeout
        torch.cuda.set_device(index)
        self.dev = torch.device("cuda", index)
        self.name = torch.cuda.get_device_name(index)
        self.backend = "rocm" if getattr(torch.version, "hip", None) else "cuda"
        self.count = torch.cuda.device_count()
        # The reference is exact fp32 (cuBLAS would otherwise use TF32 for f32 inputs).
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.generator = torch.Generator(device=self.dev)
        self.generator.manual_seed(1234)

    def worker_name(self):
        return "%s %s (triton %s, torch %s, %s)" % (
            WORKER_NAME, WORKER_VERSION, triton.__version__, torch.__version__,
            "hip " + torch.version.hip if self.backend == "rocm" else "cuda " + str(torch.version.cuda))

    # -------------------------------------------------------------- operands

    def operand(self, rows, cols, transposed, dtype):
        """A rows x cols operand; 'T' layout stores it as cols x rows and views it back."""
        if transposed:
            store = torch.randn((cols, rows), device=self.dev, dtype=torch.float32,
                                generator=self.generator)
            return store.to(dtype).t()
        store = torch.randn((rows, cols), device=self.dev, dtype=torch.float32,
                            generator=self.generator)
        return store.to(dtype)

    def operand_sets(self, req, dtype):
        M, N, K = req["M"], req["N"], req["K"]
        ta, tb = req["layout"][0] == "T", req["layout"][1] == "T"
        size = torch.tensor([], dtype=dtype).element_size()
        per_set = (M * K + K * N + M * N) * size
        sets = max(1, min(MAX_SETS, math.ceil(FLUSH_BYTES / max(1, per_set))))
        free = torch.cuda.mem_get_info(self.dev)[0]
        sets = max(1, min(sets, int(0.25 * free // max(1, per_set))))
        out = []
        for _ in range(sets):
            a = self.operand(M, K, ta, dtype)
            b = self.operand(K, N, tb, dtype)
            c = torch.empty((M, N), device=self.dev, dtype=dtype)
            out.append((a, b, c))
        return out

    # -------------------------------------------------------------- launches

    def launcher(self, req, dtype):
        """A function running one GEMM on (a, b, c), for the config or the vendor library."""
        cfg = req["config"]
        if cfg == "vendor":
            def run_vendor(a, b, c):
                torch.matmul(a, b, out=c)
            return run_vendor
        M, N = req["M"], req["N"]
        bm, bn, bk = cfg["BM"], cfg["BN"], cfg["BK"]
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        opts = {"num_warps": cfg["warps"], "num_stages": cfg["stages"]}
        if self.backend == "rocm":  # AMD-only launch options, when the config sets them
            for knob in ("waves_per_eu", "matrix_instr_nonkdim", "kpack"):
                if cfg.get(knob) is not None:
                    opts[knob] = cfg[knob]
        ieee = dtype == torch.float32

        def run_triton(a, b, c):
            tiled_matmul[grid](a, b, c, M, N, req["K"],
                               a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1),
                               BM=bm, BN=bn, BK=bk, GROUP=cfg["group"],
                               IEEE_F32=ieee, NEW_API=NEW_DOT_API, **opts)
        return run_triton

    def precompile(self, req):
        """Compiles the request's kernel ahead (on a CPU thread), so the GPU need not wait.
        Errors are left for measure() to meet and report."""
        try:
            if req.get("config") == "vendor":
                return
            dtype = torch_dtype(req["dtype"])
            if dtype is None:
                return
            cfg = req["config"]
            M, N, K = req["M"], req["N"], req["K"]
            ta, tb = req["layout"][0] == "T", req["layout"][1] == "T"
            # Tiny tensors with the real sizes' strides: the same specialization as the run.
            a = torch.empty(1, device=self.dev, dtype=dtype)
            sa = (1, M) if ta else (K, 1)
            sb = (1, K) if tb else (N, 1)
            if not hasattr(tiled_matmul, "warmup"):
                return
            opts = {"num_warps": cfg["warps"], "num_stages": cfg["stages"]}
            if self.backend == "rocm":
                for knob in ("waves_per_eu", "matrix_instr_nonkdim", "kpack"):
                    if cfg.get(knob) is not None:
                        opts[knob] = cfg[knob]
            tiled_matmul.warmup(a, a, a, M, N, K, sa[0], sa[1], sb[0], sb[1], N, 1,
                                BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], GROUP=cfg["group"],
                                IEEE_F32=dtype == torch.float32, NEW_API=NEW_DOT_API,
                                grid=(1,), **opts)
        except Exception:  # noqa: BLE001 - measure() reports it
            pass

    def measure(self, req):
        """The reply fields for one measure request (status first, times only when ok)."""
        dtype = torch_dtype(req["dtype"])
        if dtype is None:
            return {"status": "error", "detail": "dtype %s is not supported by this worker"
                    % req["dtype"]}
        tol = TOLERANCE[req["dtype"]]
        try:
            sets = self.operand_sets(req, dtype)
        except torch.cuda.OutOfMemoryError as e:
            return {"status": "error", "detail": "operands do not fit in memory: %s" % e}
        run = self.launcher(req, dtype)
        a, b, c = sets[0]
        # Correctness first: one run on fresh inputs against the fp32 reference.
        try:
            start = time.monotonic()
            run(a, b, c)
            torch.cuda.synchronize(self.dev)
            first = time.monotonic() - start
        except Exception as e:  # noqa: BLE001
            if is_out_of_resources(e):
                return {"status": "unlaunchable", "detail": str(e)[:1000]}
            if isinstance(e, torch.cuda.OutOfMemoryError):
                return {"status": "error", "detail": "out of device memory: %s" % str(e)[:1000]}
            if is_device_fault(e):
                raise
            # Anything else the first call (compile, then launch) raises is the compiler
            # refusing this config (CompilationError, an unsupported tile, ...).
            return {"status": "compile_error",
                    "detail": "%s: %s" % (type(e).__name__, str(e)[:1000])}
        ref = torch.matmul(a.float(), b.float())
        err = relative_error(c, ref)
        if not math.isfinite(err) or err > tol:
            return {"status": "wrong_result", "max_rel_error": err if math.isfinite(err) else 1e30,
                    "detail": "max relative error %.3g > tolerance %.3g for %s"
                    % (err, tol, req["dtype"])}
        if first > self.kernel_timeout:
            return {"status": "timeout", "max_rel_error": err,
                    "detail": "one run took %.1f s (limit %.1f s)" % (first, self.kernel_timeout)}
        # Time: warm-up, then device events around each run, rotating the operand sets.
        for i in range(req["warmup"]):
            x = sets[i % len(sets)]
            run(*x)
        torch.cuda.synchronize(self.dev)
        events = []
        for i in range(req["reps"]):
            x = sets[i % len(sets)]
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            s.record()
            run(*x)
            e.record()
            events.append((s, e))
        torch.cuda.synchronize(self.dev)
        times = [s.elapsed_time(e) * 1e-3 for s, e in events]
        times_sorted = sorted(times)
        n = len(times_sorted)
        median = times_sorted[n // 2] if n % 2 else 0.5 * (times_sorted[n // 2 - 1] +
                                                           times_sorted[n // 2])
        return {"status": "ok", "seconds": median, "times": times, "max_rel_error": err}


# ------------------------------------------------------------------ the protocol loop

class Protocol:
    """Reads requests on a thread (starting their compilation at once), measures them in
    order on the main thread, and writes one reply line each."""

    def __init__(self, device_index, kernel_timeout, precompile):
        self.out = os.fdopen(os.dup(1), "w", buffering=1)
        os.dup2(2, 1)  # anything else written to stdout (libraries) goes to stderr
        self.device_index = device_index
        self.kernel_timeout = kernel_timeout
        self.device = None
        self.error = IMPORT_ERROR
        self.requests = queue.Queue()
        self.compiler = ThreadPoolExecutor(max_workers=2) if precompile else None

    def reply(self, obj):
        self.out.write(json.dumps(obj, allow_nan=False) + "\n")
        self.out.flush()

    def open_device(self):
        if self.device is not None or self.error is not None:
            return
        try:
            self.device = Device(self.device_index, self.kernel_timeout)
        except Exception as e:  # noqa: BLE001
            self.error = "cannot use device %s: %s" % (self.device_index, e)

    def hello(self, req):
        self.open_device()
        if self.error is not None:
            self.reply({"id": req["id"], "status": "error", "protocol": PROTOCOL,
                        "worker": "%s %s" % (WORKER_NAME, WORKER_VERSION),
                        "detail": self.error})
            return
        d = self.device
        self.reply({"id": req["id"], "status": "ok", "protocol": PROTOCOL, "device": d.name,
                    "backend": d.backend, "worker": d.worker_name(), "devices": d.count})

    def read_loop(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
                if not isinstance(req, dict) or not isinstance(req.get("id"), int):
                    raise ValueError("not an object with an integer id")
            except ValueError as e:
                log("ignoring a line that is not a request (%s)" % e)
                continue
            future = None
            if (self.compiler is not None and req.get("op") == "measure" and
                    self.device is not None):
                future = self.compiler.submit(self.device.precompile, req)
            self.requests.put((req, future))
        self.requests.put((None, None))

    def serve(self):
        threading.Thread(target=self.read_loop, daemon=True).start()
        while True:
            req, future = self.requests.get()
            if req is None:
                return 0
            op = req.get("op")
            if op == "hello":
                self.hello(req)
            elif op == "shutdown":
                return 0
            elif op == "measure":
                if future is not None:
                    future.result()
                self.measure(req)
            else:
                self.reply({"id": req["id"], "status": "error",
                            "detail": "unknown op %r" % (op,)})

    def measure(self, req):
        self.open_device()
        if self.error is not None:
            self.reply({"id": req["id"], "status": "error", "detail": self.error})
            return
        try:
            for key in ("M", "N", "K", "warmup", "reps"):
                if not isinstance(req.get(key), int):
                    raise ValueError("%s is not an integer" % key)
            if req.get("layout", "NN") not in ("NN", "NT", "TN", "TT"):
                raise ValueError("bad layout %r" % req.get("layout"))
            req.setdefault("layout", "NN")
            fields = self.device.measure(req)
        except (ValueError, KeyError, TypeError) as e:
            fields = {"status": "error", "detail": "bad request: %s" % e}
        except Exception as e:  # noqa: BLE001 - a device fault: say so, then end this process
            self.reply({"id": req["id"], "status": "error",
                        "detail": "device fault: %s: %s" % (type(e).__name__, str(e)[:1000])})
            log("device fault (%s); exiting so the controller starts a fresh worker" % e)
            os._exit(1)
        fields["id"] = req["id"]
        self.reply(fields)


def self_test(device_index):
    """A few measurements on one shape, checked; one JSON line on stdout."""
    if IMPORT_ERROR is not None:
        print(json.dumps({"ok": False, "error": IMPORT_ERROR}))
        return 1
    d = Device(device_index, 10.0)
    report = {"device": d.name, "backend": d.backend, "worker": d.worker_name(), "checks": []}
    ok = True
    base = {"M": 512, "N": 1024, "K": 768, "warmup": 2, "reps": 5}
    cases = [("bf16", "NN", {"BM": 64, "BN": 64, "BK": 32, "warps": 4, "stages": 2, "group": 8}),
             ("f16", "NT", {"BM": 128, "BN": 64, "BK": 64, "warps": 4, "stages": 3, "group": 8}),
             ("bf16", "TT", {"BM": 32, "BN": 128, "BK": 64, "warps": 4, "stages": 2, "group": 1}),
             ("f32", "TN", {"BM": 64, "BN": 64, "BK": 32, "warps": 4, "stages": 2, "group": 4}),
             ("bf16", "NN", "vendor")]
    for dtype, layout, cfg in cases:
        req = dict(base, dtype=dtype, layout=layout, config=cfg)
        r = d.measure(req)
        report["checks"].append({"dtype": dtype, "layout": layout,
                                 "config": cfg if cfg == "vendor" else
                                 "%dx%dx%d w%d s%d g%d" % (cfg["BM"], cfg["BN"], cfg["BK"],
                                                           cfg["warps"], cfg["stages"],
                                                           cfg["group"]),
                                 "status": r["status"], "seconds": r.get("seconds"),
                                 "max_rel_error": r.get("max_rel_error")})
        ok = ok and r["status"] == "ok"
    # The check itself must catch a wrong output: one corrupted element is enough.
    a = d.operand(64, 64, False, torch.bfloat16)
    b = d.operand(64, 64, False, torch.bfloat16)
    ref = torch.matmul(a.float(), b.float())
    bad = ref.to(torch.bfloat16)
    bad[3, 5] += 1 + 10 * ref.abs().max()
    caught = relative_error(bad, ref) > TOLERANCE["bf16"]
    report["checks"].append({"check": "a corrupted output is a wrong result", "ok": caught})
    ok = ok and caught
    report["ok"] = ok
    print(json.dumps(report))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", type=int, default=0, help="GPU index (torch.cuda numbering)")
    ap.add_argument("--kernel-timeout", type=float, default=10.0,
                    help="a single run slower than this many seconds is reported as timeout")
    ap.add_argument("--no-precompile", action="store_true",
                    help="do not compile the next request's kernel on a CPU thread ahead")
    ap.add_argument("--self-test", action="store_true",
                    help="run a few checked measurements, print one JSON line, exit")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.device)
    if IMPORT_ERROR is not None:
        log(IMPORT_ERROR)
    return Protocol(args.device, args.kernel_timeout, not args.no_precompile).serve()


if __name__ == "__main__":
    sys.exit(main())
