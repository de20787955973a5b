"""Per-step overhead of Python's step() against C's imp_step.

usage: python3 apps/bench/bench_python_step.py [MODEL.xml ...] [--steps N] [--repeat R]
(default: the repo's pendulum and MuJoCo's humanoid, 2000 steps, best of 5)

Each variant steps the same trajectory from a reset, so the physics is the
same work in each; the difference is the cost of calling from Python:
  C        data.step(N): N imp_step calls in a C loop (the extension's)
  ext      for _ in range(N): data.step()       (this package)
  ext fn   for _ in range(N): impetus.step(m, d)
  ctypes   for _ in range(N): lib.imp_step(m, d) (libimpetus.so through ctypes)
Times are the best of R runs (the machine may be shared), in µs per step.
"""
import argparse
import ctypes
import os
import time

import impetus

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODELS = [os.path.join(HERE, "..", "..", "models", "pendulum.xml"),
                  "/usr/share/mujoco/model/humanoid/humanoid.xml"]


def loaded_library():
    """the libimpetus.so the extension loaded"""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libimpetus.so"):
                return path
    raise RuntimeError("libimpetus.so is not loaded")


def ctypes_lib():
    lib = ctypes.CDLL(loaded_library())
    lib.imp_load_xml.restype = ctypes.c_void_p
    lib.imp_load_xml.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.imp_make_data.restype = ctypes.c_void_p
    lib.imp_make_data.argtypes = [ctypes.c_void_p]
    for f in ("imp_step", "imp_reset_data"):
        getattr(lib, f).restype = None
        getattr(lib, f).argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.imp_free_data.argtypes = [ctypes.c_void_p]
    lib.imp_free_model.argtypes = [ctypes.c_void_p]
    return lib


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench(path, steps, repeat, lib):
    m = impetus.Model.from_xml(path)
    d = impetus.Data(m)

    def c_loop():
        d.reset()
        d.step(steps)

    def ext_loop():
        d.reset()
        step = d.step
        for _ in range(steps):
            step()

    def ext_fn_loop():
        d.reset()
        step = impetus.step
        for _ in range(steps):
            step(m, d)

    err = ctypes.create_string_buffer(1000)
    cm = lib.imp_load_xml(path.encode(), err, 1000)
    cd = lib.imp_make_data(cm)

    def ctypes_loop():
        lib.imp_reset_data(cm, cd)
        step = lib.imp_step
        for _ in range(steps):
            step(cm, cd)

    out = {}
    for name, fn in (("C", c_loop), ("ext", ext_loop), ("ext fn", ext_fn_loop), ("ctypes", ctypes_loop)):
        out[name] = best(fn, repeat) / steps * 1e6
    lib.imp_free_data(cd)
    lib.imp_free_model(cm)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", default=DEFAULT_MODELS)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    lib = ctypes_lib()
    print(f"{'model':<16}{'C':>10}{'ext':>10}{'ext fn':>10}{'ctypes':>10}"
          f"{'ext-C':>10}{'ctypes-C':>10}   (µs per step, best of {a.repeat} x {a.steps} steps)")
    for path in a.models:
        if not os.path.exists(path):
            print(f"{path}: not found, skipped")
            continue
        r = bench(path, a.steps, a.repeat, lib)
        name = os.path.splitext(os.path.basename(path))[0]
        print(f"{name:<16}{r['C']:>10.3f}{r['ext']:>10.3f}{r['ext fn']:>10.3f}{r['ctypes']:>10.3f}"
              f"{r['ext'] - r['C']:>10.3f}{r['ctypes'] - r['C']:>10.3f}")


if __name__ == "__main__":
    main()
