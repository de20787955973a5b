"""Build of the impetus extension against an installed libimpetus.

Where the library is, first found wins:
  IMPETUS_INCLUDE_DIR and IMPETUS_LIB_DIR  directories of <impetus/impetus.h>
      and libimpetus.so: a build tree (build/include, build) for the tests;
  IMPETUS_PREFIX  an install prefix (PREFIX/include, PREFIX/lib);
  pkg-config impetus  (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix
      pkg-config does not search: `cmake --install build --prefix PREFIX`).
The extension keeps a run path to the library's directory, so it loads
without LD_LIBRARY_PATH.
"""
import os
import shlex
import subprocess
import sys

import numpy
from setuptools import Extension, setup


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "impetus"], check=True,
                             capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("impetus: pkg-config not found (apt install pkg-config), "
                 "or set IMPETUS_PREFIX")
    except subprocess.CalledProcessError as e:
        sys.exit("impetus: pkg-config cannot find impetus.pc: install Impetus "
                 "(cmake --install build --prefix PREFIX) and set "
                 "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, or set IMPETUS_PREFIX\n"
                 + e.stderr)
    return shlex.split(out)


def library_dirs():
    """(include dirs, library dirs) of libimpetus"""
    inc, lib = os.environ.get("IMPETUS_INCLUDE_DIR"), os.environ.get("IMPETUS_LIB_DIR")
    if inc and lib:
        return [inc], [lib]
    prefix = os.environ.get("IMPETUS_PREFIX")
    if prefix:
        libdir = next((os.path.join(prefix, d) for d in ("lib", "lib64",
                       os.path.join("lib", "x86_64-linux-gnu"))
                       if os.path.exists(os.path.join(prefix, d, "libimpetus.so"))),
                      os.path.join(prefix, "lib"))
        return [os.path.join(prefix, "include")], [libdir]
    # impetus.pc names its prefix from its own place (${pcfiledir}/../..)
    incs = [os.path.normpath(f[2:]) for f in pkg_config("--cflags-only-I")]
    libs = [os.path.normpath(f[2:]) for f in pkg_config("--libs-only-L")]
    return incs, libs


include_dirs, lib_dirs = library_dirs()
ext = Extension(
    "impetus._impetus",
    sources=["impetus/_impetus.c"],
    include_dirs=include_dirs + [numpy.get_include()],
    library_dirs=lib_dirs,
    libraries=["impetus"],
    runtime_library_dirs=lib_dirs,
    extra_compile_args=["-std=c17", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)
setup(packages=["impetus"], ext_modules=[ext])
