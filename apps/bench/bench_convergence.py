#!/usr/bin/env python3
"""Steps not converged on a corpus of models, from qpos0 and from keyframes.

    /usr/bin/python3 apps/bench/bench_convergence.py [--build build]
        [--models FILE...] [--corpus DIR] [--steps 2000] [--keyframes first|all|none]
        [--mujoco-js DIR] [--threshold 0.001]

For each model, `impetus bench MODEL --steps N` from qpos0 and, by default,
from keyframe 0 (`--key '#0'`; --keyframes all: from every keyframe, none:
qpos0 only), one markdown row each: the steps in which some island ended
unconverged (`steps_not_converged`), the solver's iterations a step and the
step's ns (one run: the counts are deterministic, the times are not). Then
the total over the rows and the rows above --threshold (0.1% of the steps,
issue 32's bound).

--mujoco-js DIR adds, for each row, the steps at which MuJoCo 3.3.8 (the
npm package mujoco-js, installed under DIR/node_modules, run by Debian's
node) stopped at its own iteration limit (`d.solver_niter` of some island
at the file's `iterations`), with that limit: a file written for MJX with
`iterations="1"` asks for no converged answer from either simulator. The
model's folder is copied into mujoco-js's in-memory file system.

Models: --models FILE... and/or --corpus DIR (every *.xml in DIR). A model
Impetus cannot load is listed under the table with its error.
Benchmarks only: nothing here is a test."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MJS_SCRIPT = r"""
import loadMujoco from 'mujoco-js';
import fs from 'fs';
import path from 'path';
const [dir, file, steps, key] = process.argv.slice(2);
const mj = await loadMujoco();
mj.FS.mkdir('/w');
function copy(src, dst) {
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = dst + '/' + e.name;
    if (e.isDirectory()) { mj.FS.mkdir(d); copy(s, d); }
    else mj.FS.writeFile(d, fs.readFileSync(s));
  }
}
copy(dir, '/w');
const m = mj.MjModel.loadFromXML('/w/' + file);
const d = new mj.MjData(m);
if (key !== '') mj.mj_resetDataKeyframe(m, d, Number(key));
const limit = m.opt.iterations;
let at = 0;
for (let t = 0; t < Number(steps); t++) {
  mj.mj_step(m, d);
  let hit = false;
  for (let i = 0; i < Math.max(1, d.nisland); i++) if (d.solver_niter[i] >= limit) hit = true;
  if (hit) at++;
}
console.log(`${at} ${limit}`);
"""


def keyframe_count(path):
    """keyframes in the model's XML and the files it includes (a count of <key)"""
    seen, todo, n = set(), [path], 0
    while todo:
        f = todo.pop()
        if f in seen or not os.path.isfile(f):
            continue
        seen.add(f)
        text = open(f, errors="replace").read()
        n += len(re.findall(r"<key[\s/>]", text))
        for inc in re.findall(r"<include\s+file=\"([^\"]+)\"", text):
            todo.append(os.path.join(os.path.dirname(f), inc))
    return n


def impetus_row(binary, model, steps, key):
    args = [binary, "bench", model, "--steps", str(steps)]
    if key is not None:
        args += ["--key", "#%d" % key]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        lines = (r.stderr or r.stdout).strip().splitlines()
        return None, lines[0] if lines else "exit %d" % r.returncode
    v = dict(re.findall(r"^(\w+): (\S+)$", r.stdout, re.M))
    return v, None


def mujoco_js_row(script, mjs_dir, model, steps, key):
    env = dict(os.environ, NODE_PATH=os.path.join(mjs_dir, "node_modules"))
    r = subprocess.run(["node", script, os.path.dirname(model), os.path.basename(model),
                        str(steps), "" if key is None else str(key)],
                       capture_output=True, text=True, cwd=mjs_dir, env=env)
    out = r.stdout.strip().split()
    if r.returncode != 0 or len(out) != 2:
        return "-", "-"
    return out[0], out[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--models", nargs="+", default=[])
    ap.add_argument("--corpus")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--keyframes", choices=["first", "all", "none"], default="first")
    ap.add_argument("--mujoco-js", dest="mjs")
    ap.add_argument("--threshold", type=float, default=0.001)
    a = ap.parse_args()
    binary = os.path.join(a.build, "bin", "impetus")
    if not os.access(binary, os.X_OK):
        sys.exit("bench_convergence: no %s (build first, or --build DIR)" % binary)
    models = list(a.models)
    if a.corpus:
        models += sorted(os.path.join(a.corpus, f) for f in os.listdir(a.corpus) if f.endswith(".xml"))
    if not models:
        sys.exit("bench_convergence: no models (--models FILE... or --corpus DIR)")
    script = None
    if a.mjs:
        # the script must sit where node resolves mujoco-js from: in DIR
        fd, script = tempfile.mkstemp(suffix=".mjs", dir=a.mjs)
        with os.fdopen(fd, "w") as f:
            f.write(MJS_SCRIPT)
    head = "| model | start | steps not converged | iterations a step | ns a step |"
    rule = "|---|---|---|---|---|"
    if script:
        head += " MuJoCo 3.3.8 at its limit | its `iterations` |"
        rule += "---|---|"
    print(head)
    print(rule)
    total = above = rows = 0
    skipped = []
    try:
        for model in models:
            nkey = keyframe_count(model)
            keys = [None]
            if a.keyframes == "first" and nkey > 0:
                keys.append(0)
            elif a.keyframes == "all":
                keys += list(range(nkey))
            for key in keys:
                v, err = impetus_row(binary, model, a.steps, key)
                if v is None:
                    if key is None:
                        skipped.append((model, err))
                        break
                    continue  # a keyframe the model does not have after all
                nc = int(float(v.get("steps_not_converged", "0")))
                total += nc
                rows += 1
                above += nc > a.threshold * a.steps
                row = "| %s | %s | %d of %d | %s | %s |" % (
                    model, "qpos0" if key is None else "key #%d" % key, nc, a.steps,
                    v.get("solver_iterations_per_step", "-"), v.get("ns_per_step", "-"))
                if script:
                    row += " %s | %s |" % mujoco_js_row(script, a.mjs, model, a.steps, key)
                print(row, flush=True)
    finally:
        if script:
            os.unlink(script)
    print()
    print("%d rows: %d steps not converged in all; %d rows above %g%% of their steps."
          % (rows, total, above, 100 * a.threshold))
    for model, err in skipped:
        print("- skipped %s: %s" % (model, err))


if __name__ == "__main__":
    main()
