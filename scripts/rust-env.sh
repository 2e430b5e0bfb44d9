# Sourced by the Makefile and .ci/run: find a working rust-analyzer, preparing the offline one if needed.
# With internet, the same comes from: rustup component add rust-analyzer rust-src
if [ -z "${RUST_ANALYZER:-}" ] && [ ! -f /opt/rust-offline/env.sh ] && [ -f ../shared/rust-offline/setup.sh ] \
   && [ "$(id -u)" = 0 ] && ! rust-analyzer --version >/dev/null 2>&1; then
  bash ../shared/rust-offline/setup.sh >&2 || echo "rust-env: offline rust-analyzer set-up failed" >&2
fi
if [ -z "${RUST_ANALYZER:-}" ] && [ -f /opt/rust-offline/env.sh ]; then
  . /opt/rust-offline/env.sh
fi
if [ -z "${RUST_ANALYZER:-}" ] && ! rust-analyzer --version >/dev/null 2>&1 \
   && ! rustup which rust-analyzer >/dev/null 2>&1; then
  echo "rust-env: no working rust-analyzer found. Install it with:" >&2
  echo "    rustup component add rust-analyzer rust-src" >&2
  echo "  or point RUST_ANALYZER at a rust-analyzer binary." >&2
fi
