#!/usr/bin/env python3
"""Impetus against MuJoCo 2.2.2 on MuJoCo's own sample models.

    python3 apps/bench/bench_mujoco.py [--build build] [--pairs 5] [--threads 1]
                                 [--scaling] [--out bench-out]

Speed: for each of humanoid.xml (5000 steps), humanoid100.xml (500) and
22_humanoids.xml (300), --pairs times in turn `impetus bench MODEL --steps N`
then `mujoco-testspeed MODEL N 1 0` (interleaved, so both see the same load
on a shared machine); the table gives the median steps/s of each, the median
of the per-pair ratios, and Impetus's own convergence figures. --threads T
runs Impetus's islands on T threads (testspeed always runs one).

Scaling (--scaling): ms per step against the number of humanoids, 1, 2, 5,
10, 22 and 100, each humanoid its own island (3 m apart on a grid), built
from the installed humanoid.xml into the output folder; one run of each per
size over 200 steps (the fall and the first contacts), Impetus on one
thread and, with --threads T > 1, on T threads too. Written as scaling.csv
and scaling.png (build/bin/bench_plot).

Needs python3 and, for the MuJoCo columns, Debian's libmujoco-samples and
the mujoco-testspeed program (libmujoco-dev); without them only Impetus runs.
Benchmarks only: nothing here is a test."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

SAMPLES = "/usr/share/mujoco/model"
MODELS = [("humanoid/humanoid.xml", 5000), ("humanoid100/humanoid100.xml", 500),
          ("humanoid/22_humanoids.xml", 300)]
SCALING_SIZES = [1, 2, 5, 10, 22, 100]
SCALING_STEPS = 200


def fail(msg):
    print("bench_mujoco: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.stdout


def impetus_bench(impetus, model, steps, threads):
    out = run([impetus, "bench", model, "--steps", str(steps), "--threads", str(threads)])
    kv = {}
    for line in out.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            kv[k] = v
    return kv


def mujoco_steps_per_second(testspeed, model, steps, out_dir):
    # in the output folder: testspeed writes MUJOCO_LOG.TXT where it runs
    out = run([testspeed, os.path.abspath(model), str(steps), "1", "0"], cwd=out_dir)
    m = re.search(r"Steps per second\s*:\s*([0-9.eE+-]+)", out)
    if not m:
        fail("no 'Steps per second' in mujoco-testspeed's output for " + model)
    return float(m.group(1))


def speed_table(impetus, testspeed, pairs, threads, out):
    rows = []
    for rel, steps in MODELS:
        model = os.path.join(SAMPLES, rel)
        imp, muj, ratio, last = [], [], [], None
        for _ in range(pairs):
            last = impetus_bench(impetus, model, steps, threads)
            imp.append(float(last["steps_per_second"]))
            if testspeed:
                muj.append(mujoco_steps_per_second(testspeed, model, steps, out))
                ratio.append(imp[-1] / muj[-1])
        rows.append((rel, steps, imp, muj, ratio, last))
        print("  measured %s" % rel, file=sys.stderr)
    print("| model (steps) | Impetus steps/s | MuJoCo steps/s | ratio (median of %d pairs) "
          "| not converged | iterations per island: median / p90 / max |" % pairs)
    print("|---|---|---|---|---|---|")
    for rel, steps, imp, muj, ratio, last in rows:
        med_muj = "%.0f" % statistics.median(muj) if muj else "-"
        med_ratio = "%.3f" % statistics.median(ratio) if ratio else "-"
        print("| %s (%d) | %.0f | %s | %s | %s of %d steps | %s / %s / %s |" % (
            rel, steps, statistics.median(imp), med_muj, med_ratio,
            last["steps_not_converged"], steps, last["island_iterations_median"],
            last["island_iterations_p90"], last["island_iterations_max"]))


def strip_names(elem, prefix):
    """Prefix every name and every reference to a named element."""
    for e in elem.iter():
        for attr in ("name", "joint", "body", "site", "geom"):
            if attr in e.attrib:
                e.attrib[attr] = prefix + e.attrib[attr]


def humanoids_model(n, path):
    tree = ET.parse(os.path.join(SAMPLES, "humanoid/humanoid.xml"))
    root = tree.getroot()
    world = root.find("worldbody")
    act = root.find("actuator")
    bodies = [b for b in world.findall("body")]
    motors = list(act) if act is not None else []
    for b in bodies:
        world.remove(b)
    for light in world.findall("light"):
        if "target" in light.attrib:  # it follows the one humanoid of the sample
            light.attrib["target"] = "h0_" + light.attrib["target"]
    if act is not None:
        for a in motors:
            act.remove(a)
    side = 1
    while side * side < n:
        side += 1
    for i in range(n):
        prefix = "h%d_" % i
        dx, dy = 3.0 * (i % side), 3.0 * (i // side)
        for b in bodies:
            c = ET.fromstring(ET.tostring(b))
            strip_names(c, prefix)
            x, y, z = (float(v) for v in c.attrib.get("pos", "0 0 0").split())
            c.attrib["pos"] = "%g %g %g" % (x + dx, y + dy, z)
            world.append(c)
        for a in motors:
            c = ET.fromstring(ET.tostring(a))
            strip_names(c, prefix)
            act.append(c)
    size = root.find("size")
    if size is None:
        size = ET.SubElement(root, "size")
    # MuJoCo 2.2.2 sizes its buffers from these
    # MuJoCo 2.2.2 sizes its buffers from these (its efc matrices grow with
    # njmax squared: 120 rows a humanoid left no memory for 100)
    size.attrib.update({"njmax": str(60 * n), "nconmax": str(20 * n)})
    floor = world.find("geom")
    if floor is not None and floor.attrib.get("type") == "plane":
        half = 1.5 * side + 2
        floor.attrib["size"] = "%g %g .1" % (half + 1.5 * side, half + 1.5 * side)
        floor.attrib["pos"] = "%g %g 0" % (1.5 * (side - 1), 1.5 * (side - 1))
    tree.write(path)


def scaling(impetus, testspeed, threads, out, plotter):
    csv = os.path.join(out, "scaling.csv")
    # ms per step in every column but the first; short names fit the legend
    header = "humanoids,Impetus"
    if threads > 1:
        header += ",Impetus T=%d" % threads
    lines = [header + (",MuJoCo" if testspeed else "")]
    for n in SCALING_SIZES:
        path = os.path.join(out, "humanoids_%d.xml" % n)
        humanoids_model(n, path)
        kv = impetus_bench(impetus, path, SCALING_STEPS, 1)
        islands = float(kv["islands_per_step"])
        row = "%d,%.4g" % (n, 1e3 / float(kv["steps_per_second"]))
        if threads > 1:
            kv = impetus_bench(impetus, path, SCALING_STEPS, threads)
            row += ",%.4g" % (1e3 / float(kv["steps_per_second"]))
        if testspeed:
            row += ",%.4g" % (1e3 / mujoco_steps_per_second(testspeed, path, SCALING_STEPS, out))
        lines.append(row)
        print("  %d humanoids: %s (islands per step %.1f)" % (n, row, islands), file=sys.stderr)
    with open(csv, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    png = os.path.join(out, "scaling.png")
    if plotter and os.access(plotter, os.X_OK):
        subprocess.run([plotter, csv, png, "ms per step against humanoids (separate islands)"],
                       check=True)
        print("wrote %s and %s" % (csv, png))
    else:
        print("wrote %s (no bench_plot in the build: no PNG)" % csv)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--out", default="bench-out")
    a = ap.parse_args()
    if a.pairs < 1 or not 1 <= a.threads <= 64:
        fail("--pairs must be at least 1 and --threads in 1..64")
    impetus = os.path.join(a.build, "bin", "impetus")
    if not os.access(impetus, os.X_OK):
        fail("no %s: build first (README)" % impetus)
    if not os.path.isdir(SAMPLES):
        fail("MuJoCo's sample models are not installed (apt-get install libmujoco-samples)")
    testspeed = shutil.which("mujoco-testspeed")
    if not testspeed:
        print("bench_mujoco: no mujoco-testspeed (libmujoco-dev): Impetus alone",
              file=sys.stderr)
    os.makedirs(a.out, exist_ok=True)
    speed_table(impetus, testspeed, a.pairs, a.threads, a.out)
    if a.scaling:
        scaling(impetus, testspeed, a.threads, a.out, os.path.join(a.build, "bin", "bench_plot"))


if __name__ == "__main__":
    main()
