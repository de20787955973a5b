// Steps a second of MuJoCo's WebAssembly build (npm package mujoco-js) on
// one model, under Debian's nodejs:
//
//     node apps/bench/mujoco_js_speed.mjs MJS_DIR MODEL.xml STEPS [KEY [WARMUP]]
//
// MJS_DIR holds node_modules/mujoco-js (node does not look for ES modules
// in NODE_PATH, so the package is imported from there by its path). Every
// file of the model's folder and its subfolders is copied into the
// module's in-memory file system at the same absolute path, so meshes,
// textures and includes resolve as they do on disk. The run starts from
// qpos0, or from keyframe KEY (a number) when given, with every control at
// 0 (as MuJoCo 2.2.2's `mujoco-testspeed MODEL N 1 0`), and performance.now()
// is read around the stepping loop only: loading the module, copying the
// files and compiling the model are not timed. Before it, WARMUP steps
// (default: the smaller of STEPS and 500; KEY '' for qpos0) run untimed on
// a second MjData from the same start and are thrown away: a fresh
// process's first steps pay once for what a native program does not
// (Menagerie aloha from its keyframe: 11,500 steps/s over the first 100
// steps cold, 28,000 after 2,000 steps of warm-up; humanoid.xml the same
// either way), and 500-step runs would measure mostly that.
//
// Prints `version: V`, `steps: N`, `warmup_steps: W` and
// `steps_per_second: S`; a model the
// module cannot load exits 2 with the error's first line on stderr.
// Used by bench_mujoco.py --mujoco-js. A benchmark, not a test.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { pathToFileURL } from 'url';
import v8 from 'v8';

// V8 compiles WebAssembly lazily with its baseline compiler and optimizes
// the hot functions later: the first thousands of steps of a run would then
// measure the compilers (humanoid.xml: 2,200 steps/s over 1,000 steps,
// 19,000 over 20,000). Optimized code for the whole module before the
// first step times MuJoCo's code alone (30,000 over either). The flags
// must be set before the module is compiled; bench_mujoco.py passes them
// to node as well.
v8.setFlagsFromString('--no-liftoff');
v8.setFlagsFromString('--no-wasm-lazy-compilation');

const [mjsDir, modelArg, stepsArg, keyArg, warmArg] = process.argv.slice(2);
if (!mjsDir || !modelArg || !stepsArg) {
  console.error('usage: node mujoco_js_speed.mjs MJS_DIR MODEL.xml STEPS [KEY [WARMUP]]');
  process.exit(1);
}
const steps = Number(stepsArg);
if (!Number.isInteger(steps) || steps < 1) {
  console.error('mujoco_js_speed: STEPS must be a positive integer');
  process.exit(1);
}
const warmup = warmArg === undefined || warmArg === '' ? Math.min(steps, 500) : Number(warmArg);
if (!Number.isInteger(warmup) || warmup < 0) {
  console.error('mujoco_js_speed: WARMUP must be a non-negative integer');
  process.exit(1);
}

// resolve the package as a script in MJS_DIR would, then import it by URL
const req = createRequire(path.join(path.resolve(mjsDir), 'package.json'));
let entry;
try {
  entry = req.resolve('mujoco-js');
} catch (e) {
  console.error(`mujoco_js_speed: no mujoco-js under ${mjsDir}/node_modules`);
  process.exit(1);
}
const loadMujoco = (await import(pathToFileURL(entry).href)).default;
// the module writes MuJoCo's own messages (a load error's text among them)
// through print/printErr, then throws an uninformative error: keep them
const messages = [];
const mj = await loadMujoco({
  print: (t) => messages.push(String(t)),
  printErr: (t) => messages.push(String(t)),
});

const model = path.resolve(modelArg);
const dir = path.dirname(model);
function copyTree(src) {
  mj.FS.mkdirTree(src);
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name);
    if (e.isDirectory()) copyTree(s);
    else if (e.isFile()) mj.FS.writeFile(s, fs.readFileSync(s));
  }
}
copyTree(dir);

let m, d;
try {
  m = mj.MjModel.loadFromXML(model);
  d = new mj.MjData(m);
} catch (e) {
  const thrown = String(e && e.message !== undefined ? e.message : e);
  const lines = messages.concat(thrown.split('\n')).map((l) => l.trim()).filter((l) => l);
  console.error(lines.length ? lines.join('\n') : 'load failed');
  process.exit(2);
}
const key = keyArg === undefined || keyArg === '' ? null : Number(keyArg);
if (key !== null) {
  if (!Number.isInteger(key) || key < 0 || key >= m.nkey) {
    console.error(`the model has no keyframe ${keyArg} (it has ${m.nkey})`);
    process.exit(2);
  }
  mj.mj_resetDataKeyframe(m, d, key);
}

if (warmup > 0) {
  const w = new mj.MjData(m);
  if (key !== null) mj.mj_resetDataKeyframe(m, w, key);
  for (let t = 0; t < warmup; t++) mj.mj_step(m, w);
  if (typeof w.delete === 'function') w.delete();
}

const t0 = performance.now();
for (let t = 0; t < steps; t++) mj.mj_step(m, d);
const seconds = (performance.now() - t0) / 1000;

console.log(`version: ${mj.mj_versionString()}`);
console.log(`steps: ${steps}`);
console.log(`warmup_steps: ${warmup}`);
console.log(`steps_per_second: ${seconds > 0 ? (steps / seconds).toFixed(1) : 'inf'}`);
