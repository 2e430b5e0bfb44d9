# Sourced by `make test-compat`: the older rust-analyzer release and its own standard library, in place
# of the current pair. The offline set-up fetches the old analyzer but not the versioned Rust library
# its binary links against (librustc_driver), so on a fresh machine it reports the old release as
# missing; install that library by the name the package itself depends on, then let the set-up finish.
# shellcheck source=rust-env.sh
. scripts/rust-env.sh
setup=../shared/rust-offline/setup.sh
if [ -z "${RUST_ANALYZER_OLD:-}" ] && [ "$(id -u)" = 0 ] && [ -f "$setup" ]; then
  old=$(sed -n 's/^OLD_RA=\${OLD_RA:-\(.*\)}$/\1/p' "$setup")
  lib=$(apt-cache show "rust-web-analyzer=$old" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 \
        | tr ',' '\n' | sed -n 's/^ *\(libstd-rust[^ ]*\) (= \(.*\))$/\1=\2/p')
  if [ -n "$lib" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$lib" >/dev/null 2>&1; then
    rm -f /opt/rust-offline/.done  # the set-up skips every step once it has marked itself done
    bash "$setup" >&2 || echo "rust-env-old: the offline set-up failed" >&2
    . /opt/rust-offline/env.sh
  else
    echo "rust-env-old: could not install ${lib:-the library of rust-analyzer $old}" >&2
  fi
fi
if [ -n "${RUST_ANALYZER_OLD:-}" ]; then
  export RUST_ANALYZER="$RUST_ANALYZER_OLD" RUST_SRC_PATH="$RUST_SRC_PATH_OLD"
else
  echo "rust-env-old: no older rust-analyzer (RUST_ANALYZER_OLD) is set" >&2
fi
