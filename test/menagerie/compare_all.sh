#!/usr/bin/env bash
# Issue 13's agreement table: mj_compare on every dm_control suite model and
# every Menagerie scene*.xml, one line per file, then the counts.
#
#   test/menagerie/compare_all.sh DM_CONTROL_SUITE_DIR MENAGERIE_DIR
#                                 [--bin MJ_COMPARE] [--jobs J] [--steps N]
#                                 [--markdown FILE]
#
# Defaults: build/bin/mj_compare of this checkout, 2 files at a time, 1000
# contact-free steps (mj_compare always runs 2000 steps with contacts for
# the NaN count). Not part of ctest: the files are not ours, and the run
# takes minutes. The counts: files; files that load by default (nothing
# unsupported dropped); of those, with no warning at all; with 0 NaN
# resets in 2000 steps; that MuJoCo 2.2.2 loads; of those, with equal nq,
# nv, nu, nsensor; contact-free and smooth (no limits, equalities, dry
# friction) runs within 1e-8 of MuJoCo; of the smooth runs past it, those
# within 1e-8 once MuJoCo has our bodies' masses (2.2.2 gives a mesh the
# mass of its inertia box, the current docs that of its volume); of the
# contact-free runs past it, those whose first step past 1e-8 has a limit,
# equality or dry friction row with a force in either engine (ours are
# hard, MuJoCo's soft: they differ there by design). --markdown FILE writes
# issue 13's table, a row per file, with a cause for each run past 1e-8.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin="$here/../../build/bin/mj_compare"
jobs=2
steps=1000
markdown=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --steps) steps=${2:?}; shift 2 ;;
    --markdown) markdown=${2:?}; shift 2 ;;
    -*) echo "compare_all.sh: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] && [ -d "${args[0]}" ] && [ -d "${args[1]}" ] || {
  sed -n '5,7p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}
[ -x "$bin" ] || { echo "compare_all.sh: $bin is not an executable (--bin)" >&2; exit 2; }
bin=$(readlink -f "$bin")
work=$(mktemp -d "${TMPDIR:-/tmp}/compare_all.XXXXXX")
trap 'rm -rf "$work"' EXIT
{
  find -L "$(readlink -f "${args[0]}")" -maxdepth 1 -name '*.xml' | LC_ALL=C sort
  find -L "$(readlink -f "${args[1]}")" -mindepth 2 -maxdepth 2 -name 'scene*.xml' | LC_ALL=C sort
} > "$work/files"
mkdir "$work/cwd"
# one line per file: mj_compare's first (the warnings follow it, kept for
# the markdown table)
k=0
running=0
while IFS= read -r f; do
  k=$((k + 1))
  (cd "$work/cwd" && "$bin" "$f" "$steps" 2> /dev/null > "$work/out.$k"
   head -n 1 "$work/out.$k" > "$work/line.$k") &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done < "$work/files"
wait
for i in $(seq 1 "$k"); do
  if [ -s "$work/line.$i" ]; then cat "$work/line.$i"
  else echo "$(sed -n "${i}p" "$work/files") | mj_compare failed"; fi
done | tee "$work/table"
# reading mj_compare's line: whether mesh masses explain the smooth run's
# deviation, whether the contact-free run's first step past 1e-8 has
# constraint rows with force, which kinds alone go past 1e-8
awk_lib='
  function ours_masses(line, f) {
    f = line; if (!sub(/.*MuJoCo with our masses: /, "", f)) return ""
    sub(/ [|] .*/, "", f); sub(/.*smooth dev /, "smooth dev ", f); return f
  }
  function smooth_explained(s, line, v) {
    v = s; sub(/.* dev /, "", v); sub(/ .*/, "", v)
    if (v != "" && v + 0 <= 1e-8) return 0
    v = ours_masses(line); sub(/.* dev /, "", v); sub(/ .*/, "", v)
    return v != "" && v + 0 <= 1e-8
  }
  function contact_explained(f, a, b) {
    if (f !~ /past 1e-8/) return 0
    if (!match(f, /ours [0-9]+\/[0-9]+\/[0-9]+, MuJoCo.s [0-9]+\/[0-9]+\/[0-9]+/)) return 0
    a = substr(f, RSTART, RLENGTH); gsub(/[^0-9\/ ]/, "", a); gsub(/[\/ ]+/, " ", a)
    split(a, b, " ")
    return b[1] + b[2] + b[3] + b[4] + b[5] + b[6] > 0
  }
  function first_step(f, s) {
    s = f; sub(/.*past 1e-8 at step /, "", s); sub(/,.*/, "", s)
    return "first past 1e-8 at step " s ", rows with force " substr(f, index(f, "equality/limit/frictionloss"),
                                                      index(f, ")") - index(f, "equality/limit/frictionloss"))
  }
  function kinds(line, s, n, parts, i, out, v) {
    s = line; if (!sub(/.*[|] by kind[^:]*: /, "", s)) return ""
    sub(/ [|] .*/, "", s)
    n = split(s, parts, /; /); out = ""
    for (i = 1; i <= n; i++) {
      v = parts[i]; sub(/.* dev /, "", v); sub(/ .*/, "", v)
      if (v + 0 > 1e-8) { k = parts[i]; sub(/ only.*/, "", k); out = out (out == "" ? "" : ", ") k " " v }
    }
    return "(alone past 1e-8: " out ")"
  }
'
# the counts, from the fields mj_compare prints (" | " between them)
awk -F' [|] ' "$awk_lib"'
  { n++ }
  $2 !~ /^impetus: loads/ { next }
  { load++; if ($2 ~ /, 0 warnings/) quiet++; if ($NF == "nan resets 0") nanfree++ }
  $3 != "mujoco 2.2.2: loads" { next }
  { mj++
    split($4, c, /[ \/]/)  # nq A/B nv C/D nu E/F nsensor G/H
    if (c[2] == c[3] && c[5] == c[6] && c[8] == c[9] && c[11] == c[12]) same++
    for (f = 5; f <= 6; f++) {
      v = $f; sub(/.* dev /, "", v); sub(/ .*/, "", v)
      if (v != "" && v + 0 <= 1e-8) agree[f]++
    }
    if (smooth_explained($6, $0)) smoothx++
    if (contact_explained($5)) cfx++
  }
  END {
    printf "files %d; load %d; load with no warning %d; 0 NaN resets %d; MuJoCo 2.2.2 loads %d; " \
           "same nq/nv/nu/nsensor %d; contact-free within 1e-8 %d; smooth within 1e-8 %d; " \
           "smooth past 1e-8 but within it with MuJoCo given our masses %d; contact-free past 1e-8 " \
           "first at a step with constraint rows with force %d\n",
           n, load, quiet, nanfree, mj, same, agree[5], agree[6], smoothx, cfx
  }' "$work/table"
[ -n "$markdown" ] || exit 0
# issue 13's table: a row per file, a cause for each run past 1e-8
for i in $(seq 1 "$k"); do
  if [ -s "$work/out.$i" ]; then cat "$work/out.$i"
  else echo "$(sed -n "${i}p" "$work/files") | mj_compare failed"; fi
done | awk -F' [|] ' -v root1="$(readlink -f "${args[0]}")/" -v root2="$(readlink -f "${args[1]}")/" \
  "$awk_lib"'
  function flush() {
    if (name == "") return
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, loads, warn, nan, mjl, sizes,
           cf, sm, cause
    name = ""
  }
  function dev(field, v) { v = field; sub(/.* dev /, "", v); sub(/ .*/, "", v); return v }
  /^[^|]* [|] / {
    flush()
    name = $1; sub(root1, "dm_control/suite/", name); sub(root2, "", name)
    loads = $2 ~ /^impetus: loads/ ? "yes" : substr($2, 19)
    if (loads != "yes") {  # "no: <the error without its path>"
      sub(/^[^ ]*:[0-9]+: /, "", loads); sub(/; the model would not run.*/, "", loads)
      sub(/[)]$/, "", loads); loads = "no: " loads
    }
    gsub(/[|]/, "/", loads)
    warn = $2 ~ /, 0 warnings/ ? "none" : ($2 ~ /^impetus: loads/ ? "" : "-")
    mjl = $3 == "mujoco 2.2.2: loads" ? "yes" : "no"
    nan = $NF ~ /^nan resets/ ? substr($NF, 12) : "-"
    sizes = cf = sm = cause = "-"
    if (mjl == "yes" && $4 ~ /^nq/) {
      split($4, c, /[ \/]/)
      sizes = (c[2] == c[3] && c[5] == c[6] && c[8] == c[9] && c[11] == c[12]) ? "equal" : $4
      cf = dev($5); sm = dev($6)
      cause = ""
      if (sm + 0 > 1e-8)
        cause = smooth_explained($6, $0) ? "(b) mesh mass: MuJoCo 2.2.2 gives a mesh its inertia box'"'"'s " \
          "mass; smooth " dev(ours_masses($0)) " with our masses in MuJoCo" : "unexplained smooth deviation"
      if (cf + 0 > 1e-8) {
        if (cause != "") cause = cause "; "
        cause = cause (contact_explained($5) ? "(a) hard vs soft " kinds($0) ": " first_step($5) \
                                             : "unexplained contact-free deviation")
        if ($5 ~ /corrections held/) {  # ours left its violations where they were
          h = $5; sub(/.*held by our contact stage on /, "", h)
          e = $5; sub(/.*limit overshoot /, "", e); sub(/.*at the end /, "", e); sub(/[)].*/, "", e)
          cause = cause "; but our contact stage held its corrections on " h \
                  " (limit overshoot at the end " e ")"
        }
      }
      if (cause == "") cause = "-"
    }
    next
  }
  /warning: / {  # the warnings that follow the line
    w = $0; sub(/^[^ ]*: warning: /, "", w); gsub(/[|]/, "/", w)
    if (length(w) > 90) w = substr(w, 1, 87) "..."
    warn = warn (warn == "" ? "" : "; ") w
  }
  END { flush() }' > "$markdown.rows"
{
  echo "| model | loads | warnings | NaN resets in 2000 steps | MuJoCo 2.2.2 loads | nq/nv/nu/nsensor | contact-free dev (1000 steps) | smooth dev | cause when past 1e-8 |"
  echo "|---|---|---|---|---|---|---|---|---|"
  cat "$markdown.rows"
} > "$markdown"
rm -f "$markdown.rows"
