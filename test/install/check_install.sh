#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds on it as a user outside
# this tree would (ctest: install_example). Fails, naming what, when a file
# is not installed, an installed header does not compile on its own, the
# README's C example is not apps/examples/example_headless.c or does not build
# through pkg-config (shared and static) or find_package(Impetus) (shared and
# static), a build of it prints something else than the build tree's
# example_headless, a program linked to the library would load another
# OpenBLAS than the single-threaded one, or the installed renderer draws
# nothing.
#
# usage: check_install.sh BUILD_DIR SOURCE_DIR CC EXAMPLE_BIN LIBDIR RENDER(ON|OFF)
#                         OPENBLAS_SERIAL_DIR(or "") WORK_DIR
set -euo pipefail
build=$1 src=$2 cc=$3 example_bin=$4 libdir=$5 render=$6 blasdir=$7 work=$8
unset LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH

fail() { echo "check_install: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }

step "installed files"
expect=(bin/impetus bin/impetus-compare
        include/impetus/impetus.h include/impetus/types.h include/impetus/record.h
        include/impetus/rollout.h
        "$libdir/libimpetus.a" "$libdir/libimpetus.so" "$libdir/libimpetus.so.0"
        "$libdir/pkgconfig/impetus.pc"
        "$libdir/cmake/Impetus/ImpetusConfig.cmake" "$libdir/cmake/Impetus/ImpetusConfigVersion.cmake"
        "$libdir/cmake/Impetus/ImpetusTargets.cmake")
if [ "$render" = ON ]; then
  expect+=(include/impetus/render.h include/impetus/camera.h include/impetus/scene.h
           "$libdir/libimpetus_render.a" "$libdir/libimpetus_render.so"
           "$libdir/libimpetus_render.so.0" "$libdir/pkgconfig/impetus_render.pc")
fi
for f in "${expect[@]}"; do
  [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"
done
# every bundled model, with its meshes and included files
while IFS= read -r f; do
  cmp -s "$src/models/$f" "$prefix/share/impetus/models/$f" ||
    fail "model not installed as it is in the tree: share/impetus/models/$f"
done < <(cd "$src/models" && find . -type f)
soname=$(objdump -p "$prefix/$libdir/libimpetus.so" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = libimpetus.so.0 ] || fail "libimpetus.so's SONAME is '$soname', not libimpetus.so.0"

step "each installed header compiles on its own with -I$prefix/include"
cflags=(-std=c17 -Wall -Wextra -Werror -pedantic)
for h in "$prefix"/include/impetus/*.h; do
  echo "#include <impetus/$(basename "$h")>" |
    "$cc" "${cflags[@]}" -fsyntax-only -I"$prefix/include" -x c - ||
    fail "installed header $(basename "$h") does not compile on its own"
done

# The README's example, outside the tree; what the build tree's prints is the
# expected output (pendulum: the README's run; box_pyramid: one island of
# about 200 rows, which LAPACK factors).
# the README shows the example whole, after a marker: the same program
awk '/<!-- apps\/examples\/example_headless.c -->/ {m = 1; next}
     m && /^```c$/ {c = 1; next}
     c && /^```$/ {exit}
     c' "$src/README.md" >"$work/example.c"
cmp -s "$work/example.c" "$src/apps/examples/example_headless.c" ||
  fail "README.md's C example (after <!-- apps/examples/example_headless.c -->) is not apps/examples/example_headless.c"
runs=("pendulum.xml release" "box_pyramid.xml")
for i in "${!runs[@]}"; do
  read -r model key <<<"${runs[$i]}"
  "$example_bin" "$src/models/$model" ${key:+"$key"} >"$work/expected_$i.txt" ||
    fail "the build tree's example failed on $model"
done
# check_output NAME PROGRAM [ENV...]: runs the example on the installed models
check_output() {
  local name=$1 prog=$2
  shift 2
  for i in "${!runs[@]}"; do
    read -r model key <<<"${runs[$i]}"
    env "$@" "$prog" "$prefix/share/impetus/models/$model" ${key:+"$key"} >"$work/$name.$i.txt" ||
      fail "$name failed on the installed $model"
    cmp -s "$work/expected_$i.txt" "$work/$name.$i.txt" ||
      fail "$name printed '$(cat "$work/$name.$i.txt")' on $model, the build tree's example '$(cat "$work/expected_$i.txt")'"
  done
  echo "$name: $(cat "$work/$name.0.txt")"
}
# check_blas NAME PROGRAM [ENV...]: the program loads the single-threaded
# OpenBLAS (from the run path), never Debian's default threaded libblas.so.3
check_blas() {
  local name=$1 prog=$2
  shift 2
  [ -n "$blasdir" ] || return 0
  local libs
  libs=$(env "$@" ldd "$prog") || fail "ldd $name failed"
  grep -q "libopenblas.so.0 => $blasdir/" <<<"$libs" ||
    fail "$name does not load OpenBLAS from $blasdir: $(grep -i blas <<<"$libs" || echo none)"
  if grep -E "libblas\.so|openblas-pthread|openblas-openmp" <<<"$libs"; then
    fail "$name loads another BLAS beside the single-threaded one"
  fi
}
# check_links NAME PROGRAM SHARED(yes|no) [ENV...]: linked to the installed
# libimpetus.so, or to nothing of Impetus's at run time (static)
check_links() {
  local name=$1 prog=$2 shared=$3
  shift 3
  local libs
  libs=$(env "$@" ldd "$prog") || fail "ldd $name failed"
  if [ "$shared" = yes ]; then
    grep -q "libimpetus.so.0 => $prefix/$libdir/libimpetus.so.0" <<<"$libs" ||
      fail "$name is not linked to the installed libimpetus.so.0: $(grep impetus <<<"$libs" || echo none)"
  elif grep -q libimpetus <<<"$libs"; then
    fail "$name, linked statically, still needs $(grep libimpetus <<<"$libs")"
  fi
}

step "pkg-config: cc example.c \$(pkg-config --cflags --libs impetus)"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
pc_cflags=$(pkg-config --cflags impetus) || fail "pkg-config does not find impetus.pc"
pc_libs=$(pkg-config --libs impetus)
# shellcheck disable=SC2086 # pkg-config's output is split into words on purpose
"$cc" "${cflags[@]}" -o "$work/example_pc" "$work/example.c" $pc_cflags $pc_libs ||
  fail "the example does not build with pkg-config's flags: $pc_cflags $pc_libs"
run_env=(LD_LIBRARY_PATH="$prefix/$libdir")
check_links example_pc "$work/example_pc" yes "${run_env[@]}"
check_output example_pc "$work/example_pc" "${run_env[@]}"
check_blas example_pc "$work/example_pc" "${run_env[@]}"

step "pkg-config --static: the archive with Libs.private and Requires.private"
pc_static=$(pkg-config --static --libs impetus)
pc_static=${pc_static/-limpetus/$prefix/$libdir/libimpetus.a}
# shellcheck disable=SC2086
"$cc" "${cflags[@]}" -o "$work/example_pc_static" "$work/example.c" $pc_cflags $pc_static ||
  fail "the example does not link statically with pkg-config --static's flags: $pc_static"
check_links example_pc_static "$work/example_pc_static" no
check_output example_pc_static "$work/example_pc_static"
check_blas example_pc_static "$work/example_pc_static"
if [ "$render" = ON ]; then
  pkg-config --exists impetus_render || fail "pkg-config does not find impetus_render.pc"
  # shellcheck disable=SC2046
  "$cc" "${cflags[@]}" -o "$work/render_probe_pc" "$src/test/install/render_probe.c" \
    $(pkg-config --cflags --libs impetus_render) ||
    fail "render_probe does not build with pkg-config's impetus_render flags"
  env "${run_env[@]}" "$work/render_probe_pc" "$prefix/share/impetus/models/pendulum.xml" ||
    fail "render_probe_pc drew nothing"
fi
unset PKG_CONFIG_PATH

step "CMake: find_package(Impetus) with CMAKE_PREFIX_PATH=$prefix"
consumer_args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release
               -DEXAMPLE_SOURCE="$work/example.c")
if [ "$render" = ON ]; then
  consumer_args+=(-DRENDER_PROBE_SOURCE="$src/test/install/render_probe.c")
fi
cmake -S "$src/test/install/consumer" -B "$work/consumer" "${consumer_args[@]}" >"$work/consumer.log" 2>&1 &&
  cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "the find_package(Impetus) project does not build"; }
# CMake gives the programs a run path to the installed library: no LD_LIBRARY_PATH
check_links example_cmake "$work/consumer/example_shared" yes
check_output example_cmake "$work/consumer/example_shared"
check_blas example_cmake "$work/consumer/example_shared"
check_links example_cmake_static "$work/consumer/example_static" no
check_output example_cmake_static "$work/consumer/example_static"
check_blas example_cmake_static "$work/consumer/example_static"
if [ "$render" = ON ]; then
  for p in render_probe_shared render_probe_static; do
    "$work/consumer/$p" "$prefix/share/impetus/models/pendulum.xml" || fail "$p drew nothing"
  done
fi

step "the installed impetus program"
"$prefix/bin/impetus" run "$prefix/share/impetus/models/double_pendulum.xml" --steps 100 \
  >"$work/run.txt" || fail "the installed impetus run failed"
grep -qx "steps: 100" "$work/run.txt" || fail "impetus run printed: $(cat "$work/run.txt")"
check_blas impetus "$prefix/bin/impetus"

rm -rf "$work"
echo "check_install: all passed"
