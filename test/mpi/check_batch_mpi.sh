#!/usr/bin/env bash
# impetus batch under `mpirun --oversubscribe -n 2 impetus-mpi` gives the
# files of a single-process, single-thread run bitwise, and its manifest but
# for the wall_seconds column; and the plain impetus links no MPI.
#   check_batch_mpi.sh IMPETUS IMPETUS_MPI MPIEXEC MODEL WORKDIR
set -euo pipefail
impetus=$1 impetus_mpi=$2 mpiexec=$3 model=$4 work=$5
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
args=(batch "$model" --rollouts 7 --steps 150 --perturb qpos=0.05,qvel=0.5 --seed 3 --quiet)

"$impetus" "${args[@]}" --threads 1 --out "$work/one" >"$work/one.txt" ||
  fail "impetus batch failed: $(cat "$work/one.txt")"
# OpenMPI refuses to start as root unless told (CI containers run as root)
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$mpiexec" --oversubscribe -n 2 "$impetus_mpi" "${args[@]}" --threads 2 --out "$work/mpi" \
  >"$work/mpi.txt" 2>"$work/mpi.err" || fail "mpirun failed: $(cat "$work/mpi.txt" "$work/mpi.err")"

grep -qx "ranks: 2" "$work/mpi.txt" || fail "not two ranks: $(cat "$work/mpi.txt")"
grep -qx "ok: 7" "$work/mpi.txt" || fail "not 7 rollouts ok: $(cat "$work/mpi.txt")"
n=0
for f in "$work/one"/rollout_*; do
  cmp "$f" "$work/mpi/$(basename "$f")" || fail "$(basename "$f") differs"
  n=$((n + 1))
done
[ "$n" -eq 14 ] || fail "expected 7 NPY files and 7 sidecars, found $n"
[ "$(ls "$work/mpi" | wc -l)" -eq 15 ] || fail "unexpected files: $(ls "$work/mpi")"
# the manifest without its last column, wall_seconds (comment lines whole)
strip() { awk -F, '/^#/ {print; next} {NF--; print}' OFS=, "$1"; }
diff <(strip "$work/one/manifest.csv") <(strip "$work/mpi/manifest.csv") ||
  fail "manifests differ beyond wall_seconds"
[ "$(grep -c ',ok,' "$work/mpi/manifest.csv")" -eq 7 ] || fail "manifest: $(cat "$work/mpi/manifest.csv")"

# the program users run without MPI does not link it (ldd's output read
# whole first: with pipefail, grep -q quitting at its first match can kill
# ldd with SIGPIPE and fail the pipeline, which made this flaky under load)
plain_libs=$(ldd "$impetus") mpi_libs=$(ldd "$impetus_mpi")
if grep -q libmpi <<<"$plain_libs"; then fail "$impetus links libmpi"; fi
grep -q libmpi <<<"$mpi_libs" || fail "$impetus_mpi does not link libmpi"
echo "impetus-mpi batch on 2 ranks: the same 7 rollouts bitwise"
