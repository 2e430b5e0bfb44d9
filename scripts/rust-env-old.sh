# Sourced by `make test-compat`: the older rust-analyzer release (RUST_ANALYZER_OLD) and the standard
# library it was built with (RUST_SRC_PATH_OLD) take the place of the current pair.
# The offline set-up unpacks the older analyzer but not the versioned library its binary links against
# (librustc_driver, in Debian's libstd-rust-web-X.Y); without it the binary cannot start and the set-up
# reports the older release as missing. Install that library by the name the package depends on, then
# let the set-up finish.
# shellcheck source=rust-env.sh
. scripts/rust-env.sh
if [ -z "${RUST_ANALYZER_OLD:-}" ] && [ -f /opt/rust-offline/env.sh ]; then  # RUST_ANALYZER was set by hand
  eval "$(grep '^export RUST_[A-Z_]*_OLD=' /opt/rust-offline/env.sh)"
fi
_old_runs() { [ -n "${RUST_ANALYZER_OLD:-}" ] && "$RUST_ANALYZER_OLD" --version >/dev/null 2>&1; }
_setup=../shared/rust-offline/setup.sh
if ! _old_runs && [ "$(id -u)" = 0 ] && [ -f "$_setup" ]; then
  _release=$(sed -n 's/^OLD_RA=\${OLD_RA:-\(.*\)}$/\1/p' "$_setup")
  _library=$(apt-cache show "rust-web-analyzer=$_release" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 \
             | tr ',' '\n' | sed -n 's/^ *\(libstd-rust[^ ]*\) (= \(.*\))$/\1=\2/p')
  if [ -n "$_library" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$_library" >/dev/null 2>&1; then
    if [ -z "${RUST_ANALYZER_OLD:-}" ]; then
      rm -f /opt/rust-offline/.done  # a set-up marked done skips every step
      bash "$_setup" >&2 || echo "rust-env-old: the offline set-up failed" >&2
      . /opt/rust-offline/env.sh
    fi
  else
    echo "rust-env-old: could not install ${_library:-the library of rust-analyzer ${_release:-(release unknown)}}" >&2
  fi
fi
if _old_runs; then
  export RUST_ANALYZER="$RUST_ANALYZER_OLD" RUST_SRC_PATH="$RUST_SRC_PATH_OLD"
  unset -f _old_runs
else
  unset -f _old_runs
  echo "rust-env-old: no working older rust-analyzer (RUST_ANALYZER_OLD=${RUST_ANALYZER_OLD:-unset})" >&2
  false
fi
