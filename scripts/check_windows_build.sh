#!/usr/bin/env bash
# Cross-check the Windows build of the compiled modules from Linux: Cython generates the C, MinGW-w64
# compiles the whole file for x86_64 Windows against Windows CPython headers, and the object is linked
# into a .pyd against the UCRT (the C runtime CPython uses on Windows) and an import library for
# python3XY.dll. Running the result needs a Windows CPython, which this check does not have.
#
# Headers, in order of preference:
#   --include DIR        a Windows CPython include directory (the `include` folder of a Windows install);
#   by default           CPython's own Include/ plus PC/pyconfig.h (the files a Windows install ships),
#                        taken from the Debian source package of Debian's python3 and cached;
#   --linux-include DIR  (also the fallback when the source package cannot be had) a CPython include
#                        directory from another platform with a minimal Windows pyconfig.h written here.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CC=${CC_WINDOWS:-x86_64-w64-mingw32-gcc}
TOOL_PREFIX=${CC%gcc}
CYTHON=${CYTHON:-$ROOT/.venv/bin/cython}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
OUT=$ROOT/build/windows-check
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ferrule/windows-python
INCLUDE= LINUX_INCLUDE= COMPILE_ONLY=0 MODULES=()

usage() {
    cat <<EOF
usage: $0 [--include DIR | --linux-include DIR] [--compile-only] [MODULE ...]

Compile the module MODULE (default: _capture; its sources as setup.py's COMPILED lists them) for
x86_64 Windows with MinGW-w64 and link it as a .pyd. Exits non-zero on any compile or link error.
Outputs go to build/windows-check/.

  --include DIR        Windows CPython include directory to compile against
  --linux-include DIR  CPython include directory of another platform, with a minimal Windows
                       pyconfig.h put in place of its own (weaker: says so in the summary)
  --compile-only       stop after compiling the object files
EOF
}

while (($#)); do
    case $1 in
        --include) INCLUDE=${2:?--include needs a directory}; shift 2 ;;
        --linux-include) LINUX_INCLUDE=${2:?--linux-include needs a directory}; shift 2 ;;
        --compile-only) COMPILE_ONLY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
        *) MODULES+=("$1"); shift ;;
    esac
done
((${#MODULES[@]})) || MODULES=(_capture)

say() { printf '%s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

ensure_toolchain() {
    command -v "$CC" >/dev/null && command -v "${TOOL_PREFIX}dlltool" >/dev/null && return
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        say "installing MinGW-w64 (Debian packages gcc-mingw-w64-x86-64, binutils-mingw-w64-x86-64)"
        apt-get install -y -q gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 >/dev/null \
            || { apt-get update -q >/dev/null && apt-get install -y -q gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 >/dev/null; }
    fi
    command -v "$CC" >/dev/null || fail "$CC not found: install gcc-mingw-w64-x86-64 and binutils-mingw-w64-x86-64"
}

# CPython's Include/ and PC/pyconfig.h from the Debian source package (signed index, checked tarball),
# fetched with a private source list so the system's apt configuration is left alone.
fetch_debian_headers() {
    local codename source_pkg dest apt_dir orig
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
    source_pkg=${DEBIAN_PYTHON_SOURCE:-python3.$(/usr/bin/python3 -c 'import sys; print(sys.version_info[1])' 2>/dev/null || echo 11)}
    dest=$CACHE/$source_pkg
    if [[ -f $dest/include/pyconfig.h ]]; then echo "$dest"; return; fi
    [[ -n $codename && -r /usr/share/keyrings/debian-archive-keyring.gpg ]] && command -v apt-get >/dev/null || return 1
    apt_dir=$CACHE/apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/src"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" \
        >"$apt_dir/sources.list"
    local opts=(-q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                -o "Dir::State::Lists=$apt_dir/lists" -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" update >&2 || return 1
    (cd "$apt_dir/src" && apt-get "${opts[@]}" source --download-only "$source_pkg" >&2) || return 1
    orig=$(ls "$apt_dir"/src/"${source_pkg}"_*.orig.tar.* 2>/dev/null | head -n1)
    [[ -n $orig ]] || return 1
    rm -rf "$dest" && mkdir -p "$dest/include"
    tar -xf "$orig" -C "$dest" --strip-components=1 --wildcards '*/Include' '*/PC/pyconfig.h' '*/LICENSE' || return 1
    cp -r "$dest"/Include/. "$dest/include/" && cp "$dest/PC/pyconfig.h" "$dest/include/pyconfig.h"
    basename "$orig" >"$dest/ORIGIN"
    rm -rf "$apt_dir/src"
    echo "$dest"
}

# A stand-in for PC/pyconfig.h (x64, LLP64), for when the real file cannot be had.
write_minimal_pyconfig() {
    cat >"$1" <<'EOF'
/* Minimal Windows x64 pyconfig.h (stand-in for CPython's PC/pyconfig.h). */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H
#define MS_WIN32
#ifndef MS_WIN64
#define MS_WIN64
#endif
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define PLATFORM "win32"
#define PYD_PLATFORM_TAG "win_amd64"
#define PY_SUPPORT_TIER 1
#define Py_WINVER 0x0602
#define Py_NTDDI NTDDI_WIN8
#ifndef _WIN32_WINNT
#define _WIN32_WINNT Py_WINVER
#endif
#define Py_ENABLE_SHARED 1
#define MS_COREDLL
#define HAVE_DECLSPEC_DLL
#include <io.h>
#include <basetsd.h>
#include <limits.h>
typedef __int64 Py_ssize_t;
/* The same tokens as pyport.h of 3.10, which defines it again. */
#define PY_SSIZE_T_MAX ((Py_ssize_t)(((size_t)-1)>>1))
#define HAVE_PY_SSIZE_T 1
#define COMPILER "[gcc]"
#define PY_LONG_LONG long long
#define PY_LLONG_MIN LLONG_MIN
#define PY_LLONG_MAX LLONG_MAX
#define PY_ULLONG_MAX ULLONG_MAX
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define ALIGNOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_HKEY 8
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define ALIGNOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_WCHAR_T 2
#define SIZEOF__BOOL 1
#define LONG_BIT 32
#define WORD_BIT 32
#define HAVE_LARGEFILE_SUPPORT
#define HAVE_UINTPTR_T 1
#define HAVE_INTPTR_T 1
#define DOUBLE_IS_LITTLE_ENDIAN_IEEE754 1
#define HAVE_IO_H
#define HAVE_DIRECT_H 1
#define HAVE_CONIO_H 1
#define HAVE_PROCESS_H 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDDEF_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_WCHAR_H 1
#define STDC_HEADERS 1
#define WITH_PYMALLOC 1
#define WITH_DOC_STRINGS 1
#endif
EOF
}

ensure_toolchain
[[ -x $CYTHON ]] || fail "$CYTHON not found (make the venv first, or set CYTHON)"
rm -rf "$OUT" && mkdir -p "$OUT"

HEADERS_NOTE=
if [[ -n $INCLUDE ]]; then
    HEADERS_NOTE="Windows CPython headers given: $INCLUDE"
elif [[ -z $LINUX_INCLUDE ]] && dest=$(fetch_debian_headers); then
    INCLUDE=$dest/include
    HEADERS_NOTE="CPython Include/ + PC/pyconfig.h from $(cat "$dest/ORIGIN") (Debian source package) in $INCLUDE"
else
    if [[ -z $LINUX_INCLUDE ]]; then
        say "could not fetch CPython's source from Debian: falling back to this Python's headers"
        LINUX_INCLUDE=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    fi
    INCLUDE=$OUT/include
    cp -rL "$LINUX_INCLUDE"/. "$INCLUDE/"
    write_minimal_pyconfig "$INCLUDE/pyconfig.h"
    HEADERS_NOTE="headers of $LINUX_INCLUDE with a MINIMAL Windows pyconfig.h written by this script (not CPython's PC/pyconfig.h)"
fi
[[ -f $INCLUDE/Python.h && -f $INCLUDE/pyconfig.h ]] || fail "$INCLUDE has no Python.h or pyconfig.h"
grep -q 'MS_WINDOWS' "$INCLUDE/pyconfig.h" || fail "$INCLUDE/pyconfig.h is not a Windows pyconfig.h"

py_version() { sed -n "s/^#define PY_${1}_VERSION[[:space:]]*\([0-9]*\).*/\1/p" "$INCLUDE/patchlevel.h"; }
PY_TAG=$(py_version MAJOR)$(py_version MINOR)
PY_DLL=python$PY_TAG.dll
FULL_VERSION=$(sed -n 's/^#define PY_VERSION[[:space:]]*"\(.*\)"/\1/p' "$INCLUDE/patchlevel.h")

# The UCRT, as in CPython's own Windows build: a module on msvcrt.dll would have its own fd table,
# so its fd 2 would not be Python's. MS_WIN64 is set by PC/pyconfig.h for MSVC only.
CFLAGS=(-O2 -Wall -D_UCRT -D__MSVCRT_VERSION__=0xE00 -DMS_WIN64 -I"$INCLUDE"
        -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
        -Werror=return-type -Werror=pointer-to-int-cast -Werror=int-to-pointer-cast)
"$CC" -dumpspecs | sed 's/-lmsvcrt\b/-lucrt/g' >"$OUT/ucrt.specs"

# MODULE's entry in setup.py's COMPILED table: its source, then the hand-written C it links, one a line.
compiled_sources() {
    "$PYTHON" -c '
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
table = next(node.value for node in tree.body
             if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED")
source, c_files = ast.literal_eval(table)[sys.argv[2]]
print("\n".join([source, *c_files]))' "$ROOT/setup.py" "$1"
}

VERIFIED=()
for module in "${MODULES[@]}"; do
    mapfile -t sources < <(compiled_sources "$module") || true
    ((${#sources[@]})) || fail "$module is not in setup.py's COMPILED table"
    source=$ROOT/src/ferrule/${sources[0]}
    stem=${module##*.}  # a module in a subpackage (mcp._server_c) is named by its last part
    c=$OUT/$module.c obj=$OUT/$module.o
    # The directives setup.py passes to cythonize; a .py source is compiled under the module's name.
    "$CYTHON" -3 -X embedsignature=True -X binding=False -I "$ROOT/src" --module-name "ferrule.$module" \
        "$source" -o "$c" || fail "cython ${sources[0]}"
    if ! "$CC" -c "${CFLAGS[@]}" -I"$ROOT/src/ferrule" "$c" -o "$obj" 2>"$OUT/$module.log"; then
        cat "$OUT/$module.log" >&2
        fail "$CC could not compile $module.c for Windows (log: $OUT/$module.log)"
    fi
    warnings=$(grep -c 'warning:' "$OUT/$module.log" || true)
    ((warnings == 0)) || cat "$OUT/$module.log"
    objects=("$obj")
    # Hand-written C: setup.py's strict warnings, as errors.
    for c_file in "${sources[@]:1}"; do
        objects+=("$OUT/${c_file%.c}.o")
        "$CC" -c "${CFLAGS[@]}" -Wextra -Werror "$ROOT/src/ferrule/$c_file" -o "${objects[-1]}" \
            || fail "$CC could not compile $c_file for Windows with -Wall -Wextra -Werror"
        VERIFIED+=("$c_file: compiled for x86_64 Windows with -Wall -Wextra -Werror")
    done
    # What the objects need from outside, less what one of them gives another.
    imports=$(comm -23 <("${TOOL_PREFIX}nm" "${objects[@]}" | awk '$1 == "U" {print $2}' | sort -u) \
                       <("${TOOL_PREFIX}nm" "${objects[@]}" | awk '$2 == "T" {print $3}' | sort -u))
    if [[ $module == _capture ]]; then
        # Proof that the _WIN32 branch is what was compiled, not the POSIX one.
        for symbol in __imp_SetStdHandle __imp_GetStdHandle __imp__get_osfhandle __imp__dup __imp__dup2 __imp_SetHandleInformation; do
            grep -qx "$symbol" <<<"$imports" || fail "$module does not use ${symbol#__imp_}: the Windows branch was not compiled"
        done
        ! grep -qxE 'fcntl|pread|ftruncate|dup2' <<<"$imports" || fail "$module calls POSIX functions"
    fi
    VERIFIED+=("$module: whole generated C compiled for x86_64 Windows ($warnings warnings)")
    ((COMPILE_ONLY)) && continue

    # Import library for python3XY.dll from the Python symbols the module imports: each one was declared
    # __declspec(dllimport) by the headers (PyAPI_FUNC/PyAPI_DATA), i.e. exported by the DLL.
    # A symbol taken without __imp_ must be a function (the import library's thunk serves it: Cython's
    # static type tables take the address of PyObject_GenericGetAttr and the like); data must not be.
    thunked=()
    for symbol in $(grep -E '^_?Py' <<<"$imports" || true); do
        grep -rqE "PyAPI_FUNC\(.*\)[[:space:]]+${symbol}\(" "$INCLUDE" \
            || fail "$module uses the Python symbol $symbol, which is not a function declared for import"
        thunked+=("$symbol")
    done
    { echo "LIBRARY $PY_DLL"; echo "EXPORTS"
      { sed -n 's/^__imp_\(_\{0,1\}Py.*\)/\1/p' <<<"$imports"; printf '%s\n' "${thunked[@]}"; } | sed '/^$/d' | sort -u \
          | sed 's/^/    /'; } >"$OUT/$module.python$PY_TAG.def"
    "${TOOL_PREFIX}dlltool" -d "$OUT/$module.python$PY_TAG.def" -D "$PY_DLL" -l "$OUT/lib$module.python$PY_TAG.dll.a"
    pyd=$OUT/$module.cp$PY_TAG-win_amd64.pyd
    "$CC" -specs="$OUT/ucrt.specs" -shared -Wl,--no-undefined -o "$pyd" "${objects[@]}" \
        -L"$OUT" -l"$module.python$PY_TAG" || fail "linking $pyd"
    dump=$("${TOOL_PREFIX}objdump" -p "$pyd")
    grep -q "PyInit_$stem\$" <<<"$dump" || fail "$pyd does not export PyInit_$stem"
    ! grep -qi 'DLL Name: msvcrt.dll' <<<"$dump" || fail "$pyd links msvcrt.dll instead of the UCRT"
    dlls=$(sed -n 's/.*DLL Name: //p' <<<"$dump" | paste -sd' ')
    VERIFIED+=("$module: linked $(basename "$pyd"), exports PyInit_$stem, imports: $dlls")
    ((${#thunked[@]} == 0)) || VERIFIED+=("$module: API functions taken by address, through the import library's thunks: ${thunked[*]}")
done

say "Windows build check"
say "  compiler: $("$CC" --version | head -n1), target x86_64-w64-mingw32, UCRT"
say "  headers:  CPython $FULL_VERSION, $HEADERS_NOTE"
for line in "${VERIFIED[@]}"; do say "  ok: $line"; done
say "  not run:  loading the .pyd needs a Windows CPython ($PY_DLL), which this machine does not have"
