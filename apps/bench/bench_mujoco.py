#!/usr/bin/env python3
"""Impetus against MuJoCo (Debian's 2.2.2, or a native 3.3.7) on a corpus of models.

    /usr/bin/python3 apps/bench/bench_mujoco.py [--build build] [--pairs 5] [--threads 1]
        [--testspeed PATH] [--models FILE...] [--corpus DIR] [--steps N]
        [--keyframe] [--scaling] [--out bench-out] [--label NAME]
        [--mujoco-js DIR [--wasm-factor F] [--calibrate-wasm]]

Speed: for each model, --pairs times in turn `impetus bench MODEL --steps N`
then `testspeed MODEL N 1 0` (interleaved, so both see the same load on a
shared machine); one markdown table, a row per model: the median steps/s of
each, the median of the per-pair ratios, Impetus's convergence figures
(steps not converged, iterations per island median / p90 / max) and the
largest stage of Impetus's step (the largest of `impetus bench`'s
*_ns_per_step lines and the rest of the step), then the geometric mean of
the ratios. --threads T runs Impetus's islands on T threads (testspeed
always runs one).

MuJoCo: Debian's `mujoco-testspeed` (2.2.2) by default; --testspeed PATH
runs that program instead, taken to be MuJoCo 3.3.7's testspeed (same
arguments), and the MuJoCo column says which ran. With control noise 0,
3.3.7's testspeed sets every control-limited control to the middle of its
range (2.2.2 and `impetus bench` leave it at 0), and starts from the
model's keyframe named "test" if there is one (the row says so).

Models: --models FILE... and/or --corpus DIR (every *.xml in DIR), N steps
each (--steps, default 1000); by default MuJoCo's humanoid.xml (5000
steps), humanoid100.xml (500) and 22_humanoids.xml (300). A model that
either side cannot load (one step as a probe) is skipped and listed under
the table with the first line of the error; MuJoCo 3 refuses composite
`spacing` (samples composite/softbox, cloth, hammock).

Keyframes (--keyframe): every run starts from qpos0; with --keyframe, a
model with a keyframe (read from its XML and its includes) gets a second
row from keyframe 0 (`impetus bench --key '#0'`) where both sides can start
there, else a row saying why not. 2.2.2's testspeed starts only from
qpos0; 3.3.7's only from a key named "test", so for it the script writes a
file beside the model (`.bench_key0_NAME.xml`: the model included, and its
keyframe 0 added again as key "test", so meshdir and includes resolve as
the model's own) and removes it after the row; where that directory is not
writable (Debian's samples) the row says so.

Scaling (--scaling): ms per step against the number of humanoids, 1, 2, 5,
10, 22 and 100, each humanoid its own island (3 m apart on a grid), built
from the installed humanoid.xml into the output folder; one run of each per
size over 200 steps (the fall and the first contacts), Impetus on one
thread and, with --threads T > 1, on T threads too. Written as scaling.csv
and scaling.png (build/bin/bench_plot).

MuJoCo 3.3.8 under WebAssembly (--mujoco-js DIR, DIR holding
node_modules/mujoco-js, the npm package mujoco-js 0.0.7, run by Debian's
nodejs through mujoco_js_speed.mjs beside this script): where Debian's
2.2.2 cannot load a model (Menagerie's newer files), the MuJoCo column
holds the WebAssembly build's steps/s divided by its factor against native
2.2.2, marked "3.3.8 wasm (est.)", and the ratio is taken against that
estimate, pair by pair; such rows also run from keyframe 0 with
--keyframe. The factor (WebAssembly steps/s over native 2.2.2 steps/s, the
geometric mean over models both load of the median of interleaved pairs)
is measured on the three humanoid samples the first time a row needs it
and printed under the table, unless --wasm-factor F gives one measured
before. --calibrate-wasm measures and prints only the factor, on the
models given (default: the three samples). Only with Debian's 2.2.2 (not
with --testspeed). The WebAssembly timing reads performance.now() around
the stepping loop alone, after an untimed warm-up of up to 500 steps on a
second MjData (mujoco_js_speed.mjs says why); both sides start with every
control at 0.

Build: the table names the Impetus column --label (default "Impetus"), and
a line above it describes the build from its CMakeCache.txt (build type,
compiler, IMP_AVX2 and whether AVX2 was used), so that runs of two builds
(say -DIMP_AVX2=OFF beside the default) say which is which.

Needs python3 and, for the default models and --scaling, Debian's
libmujoco-samples; for the MuJoCo columns mujoco-testspeed (libmujoco-dev)
or --testspeed; without either only Impetus runs.
Benchmarks only: nothing here is a test."""
import argparse
import math
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


def first_line(*texts):
    for t in texts:
        for line in (t or "").splitlines():
            if line.strip():
                return line.strip()
    return "(no message)"


def impetus_bench(impetus, model, steps, threads, key=None):
    cmd = [impetus, "bench", model, "--steps", str(steps), "--threads", str(threads)]
    if key is not None:
        cmd += ["--key", key]
    out = run(cmd)
    kv = {}
    for line in out.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            kv[k] = v
    return kv


def impetus_loads(impetus, model):
    """None if `impetus bench` runs the model, else the first line of its error."""
    p = subprocess.run([impetus, "bench", model, "--steps", "1"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode == 0 and "steps_per_second" in p.stdout:
        return None
    return first_line(p.stderr, p.stdout)


def mujoco_try(testspeed, model, steps, out_dir):
    """(steps/s, None) or (None, first line of testspeed's error); testspeed
    exits 0 even when the model does not load."""
    # in the output folder: testspeed writes MUJOCO_LOG.TXT where it runs
    p = subprocess.run([testspeed, os.path.abspath(model), str(steps), "1", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=out_dir)
    m = re.search(r"Steps per second\s*:\s*([0-9.eE+-]+)", p.stdout)
    if p.returncode != 0 or not m:
        return None, first_line(p.stdout, p.stderr)
    return float(m.group(1)), None


def mujoco_steps_per_second(testspeed, model, steps, out_dir):
    sps, err = mujoco_try(testspeed, model, steps, out_dir)
    if err:
        fail("testspeed on %s: %s" % (model, err))
    return sps


def model_xml_text(model, seen=None):
    """The model's XML and that of the files it includes (by file name only)."""
    seen = seen if seen is not None else set()
    path = os.path.abspath(model)
    if path in seen or not os.path.isfile(path):
        return ""
    seen.add(path)
    text = open(path, errors="replace").read()
    for inc in re.findall(r"<include\s+file\s*=\s*\"([^\"]+)\"", text):
        text += model_xml_text(os.path.join(os.path.dirname(path), inc), seen)
    return text


def keyframe_names(model):
    """Names of the model's keyframes in order ('' unnamed), from its XML."""
    names = []
    for block in re.findall(r"<keyframe\b.*?</keyframe>", model_xml_text(model), re.S):
        for attrs in re.findall(r"<key\b([^>]*)>", block):
            m = re.search(r"\bname\s*=\s*\"([^\"]*)\"", attrs)
            names.append(m.group(1) if m else "")
    return names


def key0_attributes(model):
    """The attributes of the model's keyframe 0 as written (without its
    name), from its XML and its includes, or None."""
    for block in re.findall(r"<keyframe\b.*?</keyframe>", model_xml_text(model), re.S):
        for attrs in re.findall(r"<key\b([^>]*?)/?>", block):
            return re.sub(r"\bname\s*=\s*\"[^\"]*\"", "", attrs).strip()
    return None


def key0_model_for_testspeed(model):
    """(path, None): a model file written beside MODEL (so that its meshdir
    and includes resolve as MODEL's do) that includes MODEL and adds keyframe
    0 again as a key named "test", where MuJoCo 3.3.7's testspeed starts; the
    caller removes it. (None, why) when it cannot be written."""
    attrs = key0_attributes(model)
    if attrs is None:
        return None, "its keyframe 0 could not be read from the XML"
    path = os.path.join(os.path.dirname(os.path.abspath(model)),
                        ".bench_key0_" + os.path.basename(model))
    text = ('<mujoco model="keyframe 0 of %s as key test">\n  <include file="%s"/>\n'
            '  <keyframe><key name="test" %s/></keyframe>\n</mujoco>\n'
            % (os.path.basename(model), os.path.basename(model), attrs))
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        return None, "cannot write %s beside it (%s)" % (os.path.basename(path), e.strerror)
    return path, None


def dominant_stage(kv):
    """The largest of Impetus's *_ns_per_step stages, the rest of the step
    (kinematics, dynamics, integration) counted as one more, with its share."""
    total = float(kv["ns_per_step"])
    stages = {k[:-len("_ns_per_step")]: float(v) for k, v in kv.items()
              if k.endswith("_ns_per_step") and k != "ns_per_step"}
    stages["rest"] = max(0.0, total - sum(stages.values()))
    name = max(stages, key=stages.get)
    return "%s (%.0f%%)" % (name, 100.0 * stages[name] / total if total > 0 else 0.0)


MJS_SPEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mujoco_js_speed.mjs")
WASM_LABEL = "3.3.8 wasm (est.)"


def mujoco_js_try(node, mjs_dir, model, steps, key=None):
    """(steps/s, None) of MuJoCo's WebAssembly build (mujoco_js_speed.mjs),
    or (None, the first line of its error)."""
    # optimized code for the whole module before the first step: without these,
    # V8's lazy baseline compile and later tier-up are timed with the steps
    cmd = [node, "--no-liftoff", "--no-wasm-lazy-compilation", MJS_SPEED, mjs_dir,
           os.path.abspath(model), str(steps)]
    if key is not None:
        cmd.append(str(key))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"^steps_per_second: ([0-9.eE+-]+)$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        return None, first_line(p.stderr, p.stdout)
    return float(m.group(1)), None


class Wasm:
    """MuJoCo 3.3.8 under WebAssembly as the stand-in for 2.2.2, with its
    factor against native 2.2.2 (given, or measured when first needed)."""

    def __init__(self, node, mjs_dir, testspeed, pairs, out, factor=None):
        self.node, self.dir, self.testspeed = node, mjs_dir, testspeed
        self.pairs, self.out, self.factor = pairs, out, factor
        self.calibration = None  # the lines of the factor's table, once measured

    def steps_per_second(self, model, steps, key=None):
        sps, err = mujoco_js_try(self.node, self.dir, model, steps, key)
        if err:
            fail("mujoco-js on %s: %s" % (model, err))
        return sps

    def calibrate(self, models):
        """The factor: per model the median over interleaved pairs of
        WebAssembly steps/s over native 2.2.2 steps/s, then their geometric
        mean over the models both load."""
        lines = ["| model (steps) | MuJoCo 2.2.2 steps/s | MuJoCo 3.3.8 wasm steps/s | "
                 "wasm / 2.2.2 (median of %d pairs) |" % self.pairs, "|---|---|---|---|"]
        factors = []
        for model, steps in models:
            _, err = mujoco_try(self.testspeed, model, 1, self.out)
            if not err:
                _, err = mujoco_js_try(self.node, self.dir, model, 1)
            if err:
                lines.append("| %s (%d) | - | - | not loaded by both: %s |"
                             % (row_name(model), steps, err))
                continue
            nat, web, ratio = [], [], []
            for _ in range(self.pairs):
                nat.append(mujoco_steps_per_second(self.testspeed, model, steps, self.out))
                web.append(self.steps_per_second(model, steps))
                ratio.append(web[-1] / nat[-1])
            factors.append(statistics.median(ratio))
            lines.append("| %s (%d) | %.0f | %.0f | %.3f |" % (
                row_name(model), steps, statistics.median(nat), statistics.median(web),
                factors[-1]))
            print("  wasm factor: %s %.3f" % (model, factors[-1]), file=sys.stderr)
        if not factors:
            fail("no model loads in both MuJoCo 2.2.2 and mujoco-js: no wasm factor")
        self.factor = math.exp(sum(math.log(f) for f in factors) / len(factors))
        lines += ["", "Factor of MuJoCo 3.3.8 wasm against native MuJoCo 2.2.2 (geometric "
                  "mean of the %d ratios): %.3f" % (len(factors), self.factor)]
        self.calibration = lines
        return self.factor

    def estimate(self, model, steps, key=None):
        """2.2.2's steps/s as estimated from the WebAssembly build"""
        if self.factor is None:
            self.calibrate([(os.path.join(SAMPLES, rel), n) for rel, n in MODELS])
        return self.steps_per_second(model, steps, key) / self.factor


def measure(impetus, model, steps, pairs, threads, key=None, other=None):
    """other: a function of no arguments giving the other side's steps/s
    (run after each `impetus bench`), or None for Impetus alone"""
    imp, muj, ratio, last = [], [], [], None
    for _ in range(pairs):
        last = impetus_bench(impetus, model, steps, threads, key)
        imp.append(float(last["steps_per_second"]))
        if other:
            muj.append(other())
            ratio.append(imp[-1] / muj[-1])
    return imp, muj, ratio, last


def row_name(model):
    # a corpus's files are often all scene.xml: the folder says which
    return os.path.relpath(model, SAMPLES) if model.startswith(SAMPLES) \
        else os.path.join(os.path.basename(os.path.dirname(os.path.abspath(model))),
                          os.path.basename(model))


def build_description(build):
    """One line on how BUILD was configured, from its CMakeCache.txt."""
    cache = {}
    try:
        for line in open(os.path.join(build, "CMakeCache.txt"), errors="replace"):
            m = re.match(r"([A-Za-z_0-9]+):[A-Z]+=(.*)$", line.strip())
            if m:
                cache[m.group(1)] = m.group(2)
    except OSError:
        return "%s (no CMakeCache.txt: configuration unknown)" % build
    avx2 = cache.get("IMP_AVX2", "?")
    used = {"ON": "yes", "OFF": "no"}.get(avx2)
    if used is None:  # AUTO: what the configure step found on the building machine
        used = "yes" if cache.get("IMP_HOST_HAS_AVX2", "") in ("1", "ON", "TRUE") else "no"
    btype = cache.get("CMAKE_BUILD_TYPE") or "(none)"
    flags = cache.get("CMAKE_C_FLAGS_" + btype.upper(), "") if btype != "(none)" else ""
    return "%s: %s %s%s, %s, IMP_AVX2=%s (AVX2 used: %s%s)" % (
        build, os.path.basename(cache.get("CMAKE_C_COMPILER", "?")), btype,
        " (%s)" % flags if flags else "", cache.get("CMAKE_C_FLAGS", "").strip() or "no extra flags",
        avx2, used, ", -mavx2 -ffp-contract=off" if used == "yes" else "")


def speed_table(impetus, testspeed, mj_version, models, pairs, threads, out, keyframe,
                label="Impetus", wasm=None):
    rows, skipped = [], []
    bench_help = subprocess.run([impetus, "help", "bench"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True).stdout
    bench_has_key = "--key" in bench_help
    mj3 = mj_version.startswith("3")
    for model, steps in models:
        err = impetus_loads(impetus, model)
        if err:
            skipped.append((model, "Impetus", err))
            print("  skipped %s: Impetus: %s" % (model, err), file=sys.stderr)
            continue
        use_wasm = False
        if testspeed:
            _, err = mujoco_try(testspeed, model, 1, out)
            if err and wasm:
                # 2.2.2 cannot load it: MuJoCo 3.3.8 under WebAssembly instead
                _, werr = mujoco_js_try(wasm.node, wasm.dir, model, 1)
                if werr:
                    err += "; MuJoCo 3.3.8 wasm: " + werr
                else:
                    err, use_wasm = None, True
            if err:
                if mj3 and "spacing" in err:
                    err += " (MuJoCo 3 refuses composite spacing)"
                skipped.append((model, "MuJoCo " + mj_version, err))
                print("  skipped %s: MuJoCo %s: %s" % (model, mj_version, err), file=sys.stderr)
                continue
        keys = keyframe_names(model)
        note = ""
        if mj3 and "test" in keys:
            # 3.3.7's testspeed starts from the keyframe named "test" when there is one
            note = " (MuJoCo from key 'test')"
        if use_wasm:
            if wasm.factor is None:  # measured before the first row's pairs, not among them
                wasm.calibrate([(os.path.join(SAMPLES, rel), n) for rel, n in MODELS])
            other = lambda: wasm.estimate(model, steps)
        elif testspeed:
            other = lambda: mujoco_steps_per_second(testspeed, model, steps, out)
        else:
            other = None
        imp, muj, ratio, last = measure(impetus, model, steps, pairs, threads, other=other)
        rows.append((model, steps, "qpos0" + note, imp, muj, ratio, last, use_wasm))
        if keyframe and keys:
            why, mj_model = [], None
            if not bench_has_key:
                why.append("`impetus bench` has no --key")
            if use_wasm:
                pass  # the WebAssembly build starts from keyframe 0 itself
            elif testspeed and not mj3:
                why.append("MuJoCo 2.2.2's testspeed starts only from qpos0")
            elif testspeed and keys[0] != "test":
                # 3.3.7's testspeed starts only from a key named "test": it
                # runs a file beside the model that adds keyframe 0 as one
                mj_model, err = key0_model_for_testspeed(model)
                if err:
                    why.append("MuJoCo 3.3.7's testspeed starts only from a key named "
                               "'test', and " + err)
            why = ("not run: " + "; ".join(why)) if why else None
            if why:
                rows.append((model, steps, "key #0: " + why, None, None, None, None, False))
            else:
                if use_wasm:
                    other = lambda: wasm.estimate(model, steps, key=0)
                elif testspeed:
                    other = lambda: mujoco_steps_per_second(testspeed, mj_model or model,
                                                            steps, out)
                try:
                    imp, muj, ratio, last = measure(impetus, model, steps, pairs, threads,
                                                    key="#0", other=other)
                finally:
                    if mj_model:
                        os.remove(mj_model)
                rows.append((model, steps, "key #0", imp, muj, ratio, last, use_wasm))
        print("  measured %s" % model, file=sys.stderr)
    print("| model (steps) | start | %s steps/s | MuJoCo %s steps/s | ratio (median of "
          "%d pairs) | not converged | iterations per island: median / p90 / max "
          "| Impetus's largest stage |" % (label, mj_version, pairs))
    print("|---|---|---|---|---|---|---|---|")
    all_ratios, wasm_ratios = [], []
    for model, steps, start, imp, muj, ratio, last, use_wasm in rows:
        name = row_name(model)
        if imp is None:
            print("| %s (%d) | %s | - | - | - | - | - | - |" % (name, steps, start))
            continue
        med_muj = "%.0f" % statistics.median(muj) if muj else "-"
        if use_wasm:
            med_muj += ", " + WASM_LABEL
        med_ratio = "-"
        if ratio:
            (wasm_ratios if use_wasm else all_ratios).append(statistics.median(ratio))
            med_ratio = "%.3f" % statistics.median(ratio)
        print("| %s (%d) | %s | %.0f | %s | %s | %s of %d steps | %s / %s / %s | %s |" % (
            name, steps, start, statistics.median(imp), med_muj, med_ratio,
            last["steps_not_converged"], steps, last["island_iterations_median"],
            last["island_iterations_p90"], last["island_iterations_max"],
            dominant_stage(last)))
    print()
    if all_ratios:
        gm = math.exp(sum(math.log(r) for r in all_ratios) / len(all_ratios))
        print("Geometric mean of the %d ratios: %.3f" % (len(all_ratios), gm))
        print()
    if wasm_ratios:
        both = all_ratios + wasm_ratios
        gm = math.exp(sum(math.log(r) for r in wasm_ratios) / len(wasm_ratios))
        gmb = math.exp(sum(math.log(r) for r in both) / len(both))
        print("Geometric mean of the %d ratios against %s: %.3f%s"
              % (len(wasm_ratios), WASM_LABEL, gm,
                 "; of all %d: %.3f" % (len(both), gmb) if all_ratios else ""))
        print()
        print("%s: MuJoCo 2.2.2 could not load the model; the column is MuJoCo 3.3.8's "
              "WebAssembly build (mujoco-js, nodejs) in steps/s divided by its factor %.3f "
              "against native 2.2.2%s, an estimate of 2.2.2, not a measurement of it."
              % (WASM_LABEL, wasm.factor,
                 " (measured below)" if wasm.calibration else " (--wasm-factor)"))
        print()
    if mj3:
        print("Control noise 0: MuJoCo %s's testspeed sets every control-limited actuator's "
              "control to the middle of its range, where `impetus bench` (and MuJoCo 2.2.2) "
              "leave it at 0, so the two sides need not simulate the same motion." % mj_version)
    else:
        print("Control noise 0: both sides leave every control at 0.")
    print("Largest stage: the largest of `impetus bench`'s *_ns_per_step (collision, solver) "
          "and the rest of the step, with its share of ns_per_step, from the last pair.")
    if skipped:
        print()
        print("Skipped (a side could not load the model):")
        print()
        for model, side, err in skipped:
            print("- %s: %s: %s" % (os.path.basename(model), side, err))
    if wasm and wasm.calibration:
        print()
        print("The wasm factor, measured on files both load:")
        print()
        print("\n".join(wasm.calibration))


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
    ap.add_argument("--testspeed", metavar="PATH",
                    help="a native MuJoCo 3.3.7 testspeed (default: Debian's mujoco-testspeed, 2.2.2)")
    ap.add_argument("--models", nargs="+", metavar="FILE", default=[])
    ap.add_argument("--corpus", metavar="DIR", help="every *.xml in DIR")
    ap.add_argument("--steps", type=int,
                    help="steps a run (default: 5000/500/300 for the samples, 1000 otherwise)")
    ap.add_argument("--keyframe", action="store_true",
                    help="also run from keyframe 0 where the model has one and both sides can")
    ap.add_argument("--label", default="Impetus", metavar="NAME",
                    help="the Impetus column's name, e.g. 'Impetus no-AVX2' (default: Impetus)")
    ap.add_argument("--mujoco-js", dest="mjs", metavar="DIR",
                    help="DIR/node_modules/mujoco-js: MuJoCo 3.3.8 under WebAssembly where "
                         "2.2.2 cannot load a model, divided by its factor against 2.2.2")
    ap.add_argument("--wasm-factor", type=float, metavar="F",
                    help="that factor (wasm steps/s over 2.2.2's), measured before; default: "
                         "measured on the three humanoid samples when first needed")
    ap.add_argument("--calibrate-wasm", action="store_true",
                    help="only measure the factor, on the models given (default: the samples)")
    a = ap.parse_args()
    if a.pairs < 1 or not 1 <= a.threads <= 64:
        fail("--pairs must be at least 1 and --threads in 1..64")
    if a.steps is not None and a.steps < 1:
        fail("--steps must be at least 1")
    impetus = os.path.join(a.build, "bin", "impetus")
    if not os.access(impetus, os.X_OK) and not a.calibrate_wasm:
        fail("no %s: build first (README)" % impetus)
    models = [(m, a.steps or 1000) for m in a.models]
    if a.corpus:
        if not os.path.isdir(a.corpus):
            fail("no folder " + a.corpus)
        models += [(os.path.join(a.corpus, f), a.steps or 1000)
                   for f in sorted(os.listdir(a.corpus)) if f.endswith(".xml")]
    if not models:
        if not os.path.isdir(SAMPLES):
            fail("MuJoCo's sample models are not installed (apt-get install libmujoco-samples)")
        models = [(os.path.join(SAMPLES, rel), a.steps or n) for rel, n in MODELS]
    if a.testspeed:
        testspeed, version = a.testspeed, "3.3.7"
        if not os.access(testspeed, os.X_OK):
            fail("no testspeed at " + testspeed)
    else:
        testspeed, version = shutil.which("mujoco-testspeed"), "2.2.2"
        if not testspeed:
            print("bench_mujoco: no mujoco-testspeed (libmujoco-dev): Impetus alone",
                  file=sys.stderr)
    wasm = None
    if a.mjs or a.calibrate_wasm or a.wasm_factor is not None:
        if not a.mjs:
            fail("--wasm-factor and --calibrate-wasm go with --mujoco-js DIR")
        if a.testspeed:
            fail("--mujoco-js stands in for Debian's MuJoCo 2.2.2: not with --testspeed")
        if not testspeed:
            fail("--mujoco-js needs Debian's mujoco-testspeed (2.2.2) for its factor")
        if a.wasm_factor is not None and not a.wasm_factor > 0:
            fail("--wasm-factor must be positive")
        node = shutil.which("node") or shutil.which("nodejs")
        if not node:
            fail("--mujoco-js needs nodejs (apt-get install nodejs)")
        if not os.path.isdir(os.path.join(a.mjs, "node_modules", "mujoco-js")):
            fail("no %s/node_modules/mujoco-js (npm install mujoco-js@0.0.7 there)" % a.mjs)
        os.makedirs(a.out, exist_ok=True)
        wasm = Wasm(node, os.path.abspath(a.mjs), testspeed, a.pairs, a.out, a.wasm_factor)
    os.makedirs(a.out, exist_ok=True)
    if a.calibrate_wasm:
        wasm.calibrate(models)
        print("\n".join(wasm.calibration))
        return
    print("%s build %s" % (a.label, build_description(a.build)))
    print()
    speed_table(impetus, testspeed, version, models, a.pairs, a.threads, a.out, a.keyframe,
                a.label, wasm)
    if a.scaling:
        scaling(impetus, testspeed, a.threads, a.out, os.path.join(a.build, "bin", "bench_plot"))


if __name__ == "__main__":
    main()
