"""Build the compiled twins of ferrule's hot paths unless FERRULE_NO_EXTENSIONS is set."""

import runpy
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PACKAGE_DIR = "src/ferrule"

# Run on its own: the package is not importable before it is built.
NO_EXTENSIONS = runpy.run_path(f"{PACKAGE_DIR}/_twins.py")["NO_EXTENSIONS"]

# Each compiled module: its Cython or Python source, and the hand-written C it links (declared to
# Cython in a .pxd beside it). A .py source is the pure-Python module itself, typed by the .pxd named
# after the compiled module.
COMPILED = {
    "_fastframe": ("_fastframe.pyx", []),
    "_capture": ("_capture.pyx", ["_capture_fd.c"]),
    "_capture_helpers_c": ("_capture_helpers.py", []),
    "mcp._server_c": ("mcp/_server_py.py", []),
    "mcp._wire_c": ("mcp/wire.py", []),
    "mcp._validate_c": ("mcp/validate.py", []),
}

# Hand-written C is held to these on gcc and clang; Cython's generated C is not (it trips -Wextra).
STRICT_WARNINGS = ["-Wall", "-Wextra", "-Werror"]
GCC_LIKE = {"unix", "mingw32", "cygwin"}
# Its functions are the module's own: not exported from the shared object (PE exports nothing unasked).
HIDDEN = {"unix": ["-fvisibility=hidden"]}


class BuildExt(build_ext):
    """Compiles each module's hand-written C (the .c files among its `depends`) on its own, with
    STRICT_WARNINGS, and links it in; the rest builds as usual."""

    def build_extension(self, ext):
        hand_written = [path for path in ext.depends if path.endswith(".c")]
        if hand_written:
            kind = self.compiler.compiler_type
            strict = (STRICT_WARNINGS if kind in GCC_LIKE else []) + HIDDEN.get(kind, [])
            ext.extra_objects = self.compiler.compile(
                hand_written,
                output_dir=self.build_temp,
                macros=ext.define_macros,
                include_dirs=ext.include_dirs,
                debug=self.debug,
                extra_postargs=strict,
                depends=ext.depends,
            )
        super().build_extension(ext)


def _retranslate_after_pxd_edits():
    """A .py source's .pxd is named after the compiled module, so Cython's own timestamps miss an edit
    of it: the C translated from the source is dropped, to be made again."""
    for name, (source, _) in COMPILED.items():
        if not source.endswith(".py"):
            continue
        pxd = Path(PACKAGE_DIR, *name.split(".")).with_suffix(".pxd")
        translated = Path(PACKAGE_DIR, source).with_suffix(".c")
        if pxd.exists() and translated.exists() and pxd.stat().st_mtime > translated.stat().st_mtime:
            translated.unlink()


def extensions():
    if NO_EXTENSIONS:
        return []
    from Cython.Build import cythonize

    _retranslate_after_pxd_edits()

    modules = []
    for name, (source, c_files) in COMPILED.items():
        module = Extension(
            f"ferrule.{name}",
            [f"{PACKAGE_DIR}/{source}"],
            include_dirs=[PACKAGE_DIR],
            # Compiled by BuildExt, and the module relinked when they or their headers change.
            depends=[f"{PACKAGE_DIR}/{c}" for c in c_files] + [f"{PACKAGE_DIR}/{c[:-2]}.h" for c in c_files],
        )
        modules.append(module)
    return cythonize(
        modules,
        language_level=3,
        compiler_directives={"embedsignature": True, "binding": False},
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
