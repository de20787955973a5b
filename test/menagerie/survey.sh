#!/usr/bin/env bash
# Menagerie survey (issue 17): load every scene*.xml of every robot of a
# MuJoCo Menagerie checkout, run each loadable scene for N steps from its
# reference configuration and from each of its keyframes, and print a
# markdown table of what happened: status (ok, hang, exit code), wall time,
# steps whose contact solve did not converge, NaN resets, the fastest body,
# the final height of the root body, and MuJoCo 2.2.2's root height for the
# same file and keyframe where MuJoCo loads it (mj_rollout).
#
#   test/menagerie/survey.sh MENAGERIE_DIR [--impetus BIN] [--mujoco BIN|none]
#                            [--steps N] [--timeout S] [--jobs J] [--out FILE]
#                            [--label TEXT]
#
# Defaults: BIN build/bin/impetus and build/bin/mj_rollout of this checkout,
# 2000 steps, 60 s per run (killed with SIGKILL: a hung run is a "hang"),
# 2 runs at a time, the table on stdout (and in FILE with --out). Progress
# goes to stderr; --label TEXT goes into the table's header (say, which
# commit the binary was built from). Not part of ctest: a few minutes on 2
# cores, plus half a minute for every hung run (60 s of one of 2 slots).
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() {
  sed -n '10,12p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}

# ---- arguments ----
men=""
impetus="$root/build/bin/impetus"
mujoco="$root/build/bin/mj_rollout"
steps=2000
limit=60
jobs=2
out=""
label=""
while [ $# -gt 0 ]; do
  case "$1" in
    --impetus) impetus=${2:?}; shift 2 ;;
    --mujoco) mujoco=${2:?}; shift 2 ;;
    --steps) steps=${2:?}; shift 2 ;;
    --timeout) limit=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --label) label=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "survey.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$men" ] || usage; men=$1; shift ;;
  esac
done
[ -n "$men" ] && [ -d "$men" ] || { echo "survey.sh: no Menagerie directory given" >&2; usage; }
[ -x "$impetus" ] || { echo "survey.sh: $impetus is not an executable (--impetus)" >&2; exit 2; }
if [ "$mujoco" != none ] && [ ! -x "$mujoco" ]; then
  echo "survey.sh: $mujoco not found: no MuJoCo column (build mj_rollout, or --mujoco none)" >&2
  mujoco=none
fi
# absolute paths: every run starts in a scratch directory
men=$(cd "$men" && pwd)
impetus=$(readlink -f "$impetus")
[ "$mujoco" = none ] || mujoco=$(readlink -f "$mujoco")

work=$(mktemp -d "${TMPDIR:-/tmp}/survey.XXXXXX")
trap 'rm -rf "$work"' EXIT
# MuJoCo and our runs get a scratch directory as their working directory, so
# nothing (a MUJOCO_LOG.TXT) lands where the survey was started
mkdir -p "$work/cwd"

# seconds since the epoch, with fractions
now() { date +%s.%N; }

# the value of "KEY: " in file $2 ("" when absent)
field() { sed -n "s/^$1: //p" "$2" | head -n 1; }

# the first line of file $1 that is not a loader warning, for a table cell
first_error() {
  grep -v -e ': warning: ' -e '^impetus warning: ' "$1" | head -n 1 | cut -c 1-160 | sed 's/|/\\|/g'
}

# a table cell: the text, '|' escaped, or "-" when empty
cell() { if [ -n "$1" ]; then printf '%s' "$1" | sed 's/|/\\|/g'; else printf -- '-'; fi; }

# ---- 1. load every scene; list the runs ----
# runs.tsv: id, scene path, key name ("" for the scene's own state)
: > "$work/runs.tsv"
: > "$work/fails.tsv"
nscene=0
nloaded=0
while IFS= read -r scene; do
  nscene=$((nscene + 1))
  rel=${scene#"$men"/}
  chk="$work/check.$nscene"
  { (cd "$work/cwd" && timeout -s KILL "$limit" "$impetus" check "$scene" > "$chk.out" \
    2> "$chk.err"); } 2> /dev/null
  rc=$?
  if [ $rc -ne 0 ]; then
    why=$(first_error "$chk.err")
    [ $rc -eq 137 ] && why="check did not finish in ${limit} s"
    printf '%s\t%s\n' "$rel" "${why:-exit $rc, no message}" >> "$work/fails.tsv"
    echo "survey: $rel: does not load" >&2
    continue
  fi
  nloaded=$((nloaded + 1))
  printf '%s\t%s\t\n' "$nscene.0" "$scene" >> "$work/runs.tsv"
  k=0
  while IFS= read -r name; do
    k=$((k + 1))
    printf '%s\t%s\t%s\n' "$nscene.$k" "$scene" "$name" >> "$work/runs.tsv"
  done < <(sed -n 's/^key [0-9]*: //p' "$chk.out")
done < <(find -L "$men" -mindepth 2 -maxdepth 2 -name 'scene*.xml' | LC_ALL=C sort)
nrun=$(wc -l < "$work/runs.tsv")
echo "survey: $nloaded of $nscene scenes load; $nrun runs of $steps steps" >&2

# ---- 2. run them, J at a time ----
# one run of ours and MuJoCo's for the same file and keyframe, into $work/run.ID.*
run_one() {
  local id=$1 scene=$2 name=$3 f="$work/run.$1"
  local keyarg=()
  [ -n "$name" ] && keyarg=(--key "$name")
  local t0 t1 rc
  t0=$(now)
  # the braces keep bash's "Killed" note about a hung run out of the progress
  { (cd "$work/cwd" && timeout -s KILL "$limit" "$impetus" run "$scene" --steps "$steps" \
    "${keyarg[@]}" > "$f.out" 2> "$f.err"); } 2> /dev/null
  rc=$?
  t1=$(now)
  echo "$rc" > "$f.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$f.wall"
  if [ "$mujoco" != none ]; then
    { (cd "$work/cwd" && timeout -s KILL "$limit" "$mujoco" "$scene" --steps "$steps" \
      "${keyarg[@]}" > "$f.mj.out" 2> "$f.mj.err"); } 2> /dev/null
    echo $? > "$f.mj.rc"
  fi
  echo "survey: ${scene#"$men"/} ${name:+key '$name' }exit $rc in $(cat "$f.wall") s" >&2
}

running=0
while IFS=$'\t' read -r id scene name; do
  run_one "$id" "$scene" "$name" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done < "$work/runs.tsv"
wait

# ---- 3. the report ----
# status of our run: ok, hang (killed at the time limit), crash, or exit N
status_of() {
  local rc=$1 wall=$2
  if [ "$rc" -eq 0 ]; then echo ok
  elif [ "$rc" -eq 137 ] && awk -v w="$wall" -v l="$limit" 'BEGIN { exit !(w >= l - 1) }'; then
    echo hang
  elif [ "$rc" -gt 128 ]; then echo "crash (signal $((rc - 128)))"
  elif [ "$rc" -eq 3 ]; then echo "exit 3 (non-finite)"
  else echo "exit $rc"
  fi
}

# MuJoCo's root height cell: the height, none, or why there is none
mujoco_cell() {
  local f=$1
  [ "$mujoco" = none ] && { echo "-"; return; }
  local rc
  rc=$(cat "$f.mj.rc")
  if [ "$rc" -eq 0 ]; then
    local z n
    z=$(field root_height "$f.mj.out")
    n=$(field nan_resets "$f.mj.out")
    if [ "${n:-0}" != 0 ]; then echo "$z ($n NaN resets)"; else echo "$z"; fi
  elif [ "$rc" -eq 137 ]; then echo "hang"
  elif grep -q '^mujoco: ' "$f.mj.err"; then echo "does not load"
  else echo "exit $rc"
  fi
}

report() {
  local nok=0 nhang=0 nother=0 nfast=0 nnan=0 nnotconv=0
  local rows="$work/rows.md"
  : > "$rows"
  while IFS=$'\t' read -r id scene name; do
    local f="$work/run.$id" rc wall st nc nan v body z mj speed
    rc=$(cat "$f.rc")
    wall=$(cat "$f.wall")
    st=$(status_of "$rc" "$wall")
    case "$st" in ok) nok=$((nok + 1)) ;; hang) nhang=$((nhang + 1)) ;; *) nother=$((nother + 1)) ;; esac
    nc=$(field steps_not_converged "$f.out")
    nan=$(field nan_resets "$f.out")
    v=$(field max_body_speed "$f.out")
    body=$(field max_body_speed_body "$f.out")
    z=$(field root_height "$f.out")
    speed=""
    if [ -n "$v" ]; then
      speed="$v ($body)"
      if awk -v v="$v" 'BEGIN { exit !(v > 10) }'; then
        speed="**$speed**"
        nfast=$((nfast + 1))
      fi
    fi
    [ -n "$nan" ] && [ "$nan" != 0 ] && nnan=$((nnan + 1))
    [ -n "$nc" ] && [ "$nc" != 0 ] && nnotconv=$((nnotconv + 1))
    mj=$(mujoco_cell "$f")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(cell "${scene#"$men"/}")" \
      "$(cell "$name")" "$st" "$wall" "$(cell "$nc")" "$(cell "$nan")" "$(cell "$speed")" \
      "$(cell "$z")" "$(cell "$mj")" >> "$rows"
  done < "$work/runs.tsv"

  echo "# Menagerie survey"
  echo
  echo "- Menagerie: \`$men\`; impetus: \`$impetus\` ($("$impetus" --version 2>/dev/null))${label:+; $label}"
  echo "- $nscene scenes, $nloaded load; $nrun runs of $steps steps (the scene, and each keyframe), at most ${limit} s each"
  echo "- runs ok: $nok; hang (killed after ${limit} s): $nhang; other exits: $nother"
  echo "- runs with a step that did not converge: $nnotconv; with a NaN reset: $nnan; with a body faster than 10 m/s (bold): $nfast"
  echo
  echo "steps_not_converged: steps whose worst island's solver exit was not \`converged\`."
  echo "max_body_speed: the fastest centre of mass after any step, m/s (body)."
  echo "root_height: z of the first free joint's body at the end (none: no free joint)."
  echo "MuJoCo root_height: the same file and keyframe stepped by MuJoCo 2.2.2 (mj_rollout)."
  echo
  echo "| robot/scene | key | status | wall s | steps_not_converged | nan_resets | max_body_speed (body) | root_height | MuJoCo root_height |"
  echo "|---|---|---|---|---|---|---|---|---|"
  cat "$rows"
  echo
  echo "## Scenes that do not load ($((nscene - nloaded)))"
  echo
  echo "| robot/scene | first error |"
  echo "|---|---|"
  while IFS=$'\t' read -r rel why; do
    printf '| %s | %s |\n' "$(cell "$rel")" "$why"
  done < "$work/fails.tsv"
  if [ "$mujoco" != none ]; then
    echo
    echo "## Scenes MuJoCo 2.2.2 does not load"
    echo
    echo "| robot/scene | MuJoCo's message |"
    echo "|---|---|"
    while IFS=$'\t' read -r id scene name; do
      [ -z "$name" ] && [ -f "$work/run.$id.mj.err" ] || continue
      grep -q '^mujoco: ' "$work/run.$id.mj.err" || continue
      printf '| %s | %s |\n' "$(cell "${scene#"$men"/}")" \
        "$(sed -n 's/^mujoco: //p' "$work/run.$id.mj.err" | head -n 1 | cut -c 1-160 | sed 's/|/\\|/g')"
    done < "$work/runs.tsv"
  fi
}

if [ -n "$out" ]; then
  report | tee "$out"
else
  report
fi
