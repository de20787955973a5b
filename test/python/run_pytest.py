"""ctest's python test: build the impetus extension (apps/python) into a
fresh directory against the build tree's libimpetus.so, as setup.py does
for a user but with IMPETUS_INCLUDE_DIR / IMPETUS_LIB_DIR instead of
pkg-config and with -Werror, then run pytest on test/python with it.

usage: run_pytest.py SOURCE_DIR BUILD_DIR WORK_DIR IMPETUS_BIN
"""
import os
import shutil
import subprocess
import sys


def main():
    src, build, work, impetus_bin = sys.argv[1:5]
    pkg = os.path.join(work, "pkg")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(src, "apps", "python"), pkg,
                    ignore=shutil.ignore_patterns("build", "*.so", "__pycache__", "*.egg-info"))
    env = dict(os.environ,
               IMPETUS_INCLUDE_DIR=os.path.join(build, "include"),
               IMPETUS_LIB_DIR=build,
               CFLAGS="-Werror")
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                   cwd=pkg, env=env, check=True)
    env = dict(os.environ, PYTHONPATH=pkg, IMPETUS_BIN=impetus_bin,
               IMP_MODELS_DIR=os.path.join(src, "models"),
               PYTHONDONTWRITEBYTECODE="1")
    tests = os.path.join(src, "test", "python")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--basetemp", os.path.join(work, "tmp"), tests], env=env)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
