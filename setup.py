"""Build the compiled twins of ferrule's hot paths unless FERRULE_NO_EXTENSIONS is set."""

import os
import sys

from setuptools import Extension, setup

NO_EXTENSIONS = bool(os.environ.get("FERRULE_NO_EXTENSIONS")) or sys.implementation.name != "cpython"

COMPILED = ["_fastframe", "_capture"]


def extensions():
    if NO_EXTENSIONS:
        return []
    from Cython.Build import cythonize

    modules = [
        Extension(f"ferrule.{name}", [f"src/ferrule/{name}.pyx"])
        for name in COMPILED
    ]
    return cythonize(
        modules,
        language_level=3,
        compiler_directives={"embedsignature": True, "binding": False},
    )


setup(ext_modules=extensions())
