#!/usr/bin/env python3
"""Throughput of `impetus batch` beside MuJoCo 2.2.2's threaded testspeed.

    python3 apps/bench/bench_batch.py [--build build] [--repeats 3] [--threads 2]

For humanoid.xml (1000 steps a rollout) and 22_humanoids.xml (200), each
--repeats times in turn (interleaved, so all see the same load on a shared
machine):
  impetus batch MODEL --rollouts 2T --steps N --threads t   for t = 1 .. T
  mpirun -n T impetus-mpi batch ... --threads 1             (when built, -DIMP_WITH_MPI=ON)
  mujoco-testspeed MODEL N t 0                              for t = 1 .. T
Every Impetus rollout starts from the model's reference state (no
perturbation, no controls), as testspeed's threads do; the rollouts write
their NPY files (into a scratch folder), which the steps/s include.
The table gives the median total steps/s of each, the ratio to MuJoCo with
the same threads, and the parallel efficiency (steps/s on t threads over t
times the steps/s on one). Then a projection of a cluster run from the
measured per-rollout cost (the manifest's wall_seconds, median): rollouts are
independent, so with R rollouts of equal cost c on P processes the run takes
ceil(R / P) c, assuming no shared-filesystem contention, start-up time
small beside it, and the per-process cost measured here.

Benchmarks only: nothing here is a test. Say the load (printed) when
quoting the numbers."""
import argparse
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

SAMPLES = "/usr/share/mujoco/model/humanoid"
MODELS = [("humanoid.xml", 1000), ("22_humanoids.xml", 200)]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def run(cmd, cwd=None, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                       env=dict(os.environ, **(env or {})))
    if r.returncode != 0:
        sys.exit(f"bench_batch: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def impetus_batch(cmd, out):
    """(steps/s, per-rollout wall seconds) of one batch run into out"""
    shutil.rmtree(out, ignore_errors=True)
    text = run(cmd + ["--out", out, "--quiet"], env=MPI_ENV)
    sps = float(re.search(r"^steps_per_second: ([0-9.]+)", text, re.M).group(1))
    with open(os.path.join(out, "manifest.csv")) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))][1:]
    return sps, [float(r[-1]) for r in rows]


def mujoco_sps(testspeed, model, steps, threads, cwd):
    text = run([testspeed, model, str(steps), str(threads), "0"], cwd=cwd)
    m = re.search(r"Total steps per second : ([0-9.]+)", text) or \
        re.search(r"Steps per second\s*: ([0-9.]+)", text)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    impetus = os.path.join(a.build, "bin", "impetus")
    impetus_mpi = os.path.join(a.build, "bin", "impetus-mpi")
    if not os.path.exists(impetus):
        sys.exit(f"bench_batch: {impetus} not built")
    have_mpi = os.path.exists(impetus_mpi) and shutil.which("mpirun")
    testspeed = shutil.which("mujoco-testspeed")
    scratch = tempfile.mkdtemp(prefix="bench_batch_")
    print(f"load average before: {os.getloadavg()}, cores: {os.cpu_count()}")
    T = a.threads
    results = {}
    for name, steps in MODELS:
        model = os.path.join(SAMPLES, name)
        if not os.path.exists(model):
            print(f"{model} missing (libmujoco-samples): skipped")
            continue
        base = [impetus, "batch", model, "--rollouts", str(2 * T), "--steps", str(steps)]
        configs = [(f"impetus batch --threads {t}", base + ["--threads", str(t)], t)
                   for t in range(1, T + 1)]
        if have_mpi:
            configs.append((f"mpirun -n {T} impetus-mpi --threads 1",
                            ["mpirun", "--oversubscribe", "-n", str(T), impetus_mpi] + base[1:]
                            + ["--threads", "1"], T))
        for _ in range(a.repeats):
            for label, cmd, t in configs:
                sps, walls = impetus_batch(cmd, os.path.join(scratch, "out"))
                r = results.setdefault((name, label), {"sps": [], "wall": [], "t": t})
                r["sps"].append(sps)
                r["wall"] += walls
            if testspeed:
                for t in range(1, T + 1):
                    r = results.setdefault((name, f"mujoco-testspeed {t} threads"),
                                           {"sps": [], "wall": [], "t": t})
                    r["sps"].append(mujoco_sps(testspeed, model, steps, t, scratch))
    print(f"load average after: {os.getloadavg()}")
    print()
    print(f"{'model':18} {'run':40} {'steps/s':>9} {'vs MuJoCo':>9} {'efficiency':>10}")
    for (name, label), r in results.items():
        sps = statistics.median(r["sps"])
        one_label = (f"impetus batch --threads 1" if label.startswith("impetus") or
                     label.startswith("mpirun") else "mujoco-testspeed 1 threads")
        one = statistics.median(results[(name, one_label)]["sps"])
        eff = sps / (r["t"] * one)
        muj = results.get((name, f"mujoco-testspeed {r['t']} threads"))
        ratio = f"{sps / statistics.median(muj['sps']):9.2f}" if muj and \
            not label.startswith("mujoco") else f"{'':9}"
        print(f"{name:18} {label:40} {sps:9.0f} {ratio} {eff:10.2f}")
    print()
    print("projection (independent rollouts of equal cost c, the median measured here on one "
          "thread; time = ceil(R / P) c on P processes, no file-system contention):")
    for name, steps in MODELS:
        r = results.get((name, "impetus batch --threads 1"))
        if not r:
            continue
        c = statistics.median(r["wall"])
        for rollouts in (10_000,):
            cells = [f"P={p}: {math.ceil(rollouts / p) * c:9.1f} s" for p in (1, 64, 1024)]
            print(f"  {name} ({steps} steps, c = {c:.3f} s), {rollouts} rollouts: " +
                  ", ".join(cells))
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
