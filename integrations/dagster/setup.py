"""tablegate-dagster's wheel carries a tablegate binary built from the checkout it sits in
(integrations/dagster of a tablegate clone) whenever Go is there: a linux x86_64 platform wheel,
the package in platlib. Without Go, or without the checkout (an sdist), or with
TABLEGATE_DAGSTER_NO_BINARY=1, the wheel is pure Python and finds tablegate on PATH; the build
says so on stderr. build_wheel.sh turns the platform wheel into a manylinux one with auditwheel.

The binary links libstdc++ statically (with arc4random routed to getrandom, see
cmd/tablegate/manylinux.go), so it needs only glibc, libm and libgcc_s.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

REPO = Path(__file__).resolve().parent.parent.parent


def _go() -> str | None:
    """The go command when the binary is to be built, else None (after saying why not)."""
    if os.environ.get("TABLEGATE_DAGSTER_NO_BINARY"):
        reason = "TABLEGATE_DAGSTER_NO_BINARY is set"
    elif not (REPO / "go.mod").is_file() or not (REPO / "cmd" / "tablegate").is_dir():
        reason = f"{REPO} is not a tablegate checkout (an sdist?)"
    elif sys.platform != "linux":
        reason = "the platform wheel is for linux only"
    elif not shutil.which("go"):
        reason = "go is not on PATH"
    elif not shutil.which("gcc"):
        raise SystemExit(
            "tablegate-dagster: go is on PATH but gcc is not, and tablegate's DuckDB needs cgo: install gcc, "
            "or set TABLEGATE_DAGSTER_NO_BINARY=1 for a wheel without the binary"
        )
    else:
        return shutil.which("go")
    print(
        f"tablegate-dagster: building a pure Python wheel WITHOUT the tablegate binary ({reason}); "
        "its assets will run tablegate from PATH or executable=",
        file=sys.stderr,
    )
    return None


def build_tablegate(go: str, dest: Path) -> None:
    """go build ./cmd/tablegate into dest, libstdc++ linked statically when gcc has its archive."""
    libstdcxx = subprocess.run(
        ["gcc", "-print-file-name=libstdc++.a"], capture_output=True, text=True, check=True
    ).stdout.strip()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tablegate-static-") as static:
        # cgo asks for -lstdc++; a folder searched first that holds only the archive makes the
        # linker take the static library (gcc's -static-libstdc++ leaves an explicit -l alone).
        if os.path.isabs(libstdcxx):
            os.symlink(libstdcxx, os.path.join(static, "libstdc++.a"))
        else:
            print("tablegate-dagster: gcc has no libstdc++.a: tablegate links libstdc++.so", file=sys.stderr)
        print(f"tablegate-dagster: go build ./cmd/tablegate (from {REPO}) into the wheel", file=sys.stderr)
        subprocess.run(
            [
                go,
                "build",
                "-tags",
                "manylinux",
                "-trimpath",
                f"-ldflags=-s -w -extldflags '-L{static} -Wl,--wrap=arc4random'",
                "-o",
                str(dest),
                "./cmd/tablegate",
            ],
            cwd=REPO,
            env={**os.environ, "CGO_ENABLED": "1"},
            check=True,
        )


GO = _go()


class BuildWithTablegate(build_py):
    def run(self):
        super().run()
        # An editable install runs the package from the source folder: tablegate comes from PATH.
        if GO and not getattr(self, "editable_mode", False):
            build_tablegate(GO, Path(self.build_lib).resolve() / "tablegate_dagster" / "bin" / "tablegate")


class PlatformDistribution(Distribution):
    """With the binary, the package is platform-specific: built and installed as platlib."""

    def has_ext_modules(self):
        return bool(GO)


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        python, abi, platform = super().get_tag()
        # The binary is not a Python extension: any Python 3 on the platform can run it.
        return ("py3", "none", platform) if GO else (python, abi, platform)


setup(distclass=PlatformDistribution, cmdclass={"build_py": BuildWithTablegate, "bdist_wheel": PlatformWheel})
