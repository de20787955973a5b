#!/usr/bin/env bash
# Issue 13's agreement table: mj_compare on every dm_control suite model and
# every Menagerie scene*.xml, one line per file, then the counts.
#
#   test/menagerie/compare_all.sh DM_CONTROL_SUITE_DIR MENAGERIE_DIR
#                                 [--bin MJ_COMPARE] [--jobs J] [--steps N]
#
# Defaults: build/bin/mj_compare of this checkout, 2 files at a time, 1000
# contact-free steps (mj_compare always runs 2000 steps with contacts for
# the NaN count). Not part of ctest: the files are not ours, and the run
# takes minutes. The counts: files; files that load by default (nothing
# unsupported dropped); of those, with no warning at all; with 0 NaN
# resets in 2000 steps; that MuJoCo 2.2.2 loads; of those, with equal nq,
# nv, nu, nsensor; contact-free and smooth (no limits, equalities, dry
# friction) runs within 1e-8 of MuJoCo.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin="$here/../../build/bin/mj_compare"
jobs=2
steps=1000
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --steps) steps=${2:?}; shift 2 ;;
    -*) echo "compare_all.sh: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] && [ -d "${args[0]}" ] && [ -d "${args[1]}" ] || {
  sed -n '5,6p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
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
# one line per file: mj_compare's first (the warnings follow it)
k=0
running=0
while IFS= read -r f; do
  k=$((k + 1))
  (cd "$work/cwd" && "$bin" "$f" "$steps" 2> /dev/null | head -n 1 > "$work/line.$k") &
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
# the counts, from the fields mj_compare prints (" | " between them)
awk -F' [|] ' '
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
  }
  END {
    printf "files %d; load %d; load with no warning %d; 0 NaN resets %d; MuJoCo 2.2.2 loads %d; " \
           "same nq/nv/nu/nsensor %d; contact-free within 1e-8 %d; smooth within 1e-8 %d\n",
           n, load, quiet, nanfree, mj, same, agree[5], agree[6]
  }' "$work/table"
