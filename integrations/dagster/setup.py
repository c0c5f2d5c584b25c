"""A linux x86_64 (platform) wheel when build_wheel.sh put a tablegate binary into
src/tablegate_dagster/bin; a pure Python wheel, which finds tablegate on PATH, otherwise."""

from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

BINARY = Path(__file__).parent / "src" / "tablegate_dagster" / "bin" / "tablegate"


class BinaryWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        if BINARY.is_file():
            self.root_is_pure = False

    def get_tag(self):
        python, abi, platform = super().get_tag()
        # The binary is not a Python extension: any Python 3 on the platform can run it.
        return ("py3", "none", platform) if BINARY.is_file() else (python, abi, platform)


setup(cmdclass={"bdist_wheel": BinaryWheel})
