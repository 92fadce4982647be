#!/usr/bin/env bash
# Ruvio's one entry point for people and CI (see INTERFACE.md):
#   ./deploy/ruvio.sh run   [ruvio flags…]  install what is missing, build, run in the foreground
#   ./deploy/ruvio.sh test  [runner flags…] install, build, run the whole test suite
#   ./deploy/ruvio.sh build                 install and build only (release build in build/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RUVIO_BUILD:-$ROOT/build}"

# Debian 12 packages: toolchain, libraries, and the real Redis + clients the tests compare with.
PACKAGES=(
  g++ cmake meson ninja-build pkg-config
  libuv1-dev libmimalloc-dev libcereal-dev libspdlog-dev libfmt-dev doctest-dev libcxxopts-dev
  redis-server redis-tools python3-redis
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "ruvio.sh: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >&2
  fi
}

build() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" "$ROOT" --buildtype=release >&2
  fi
  ninja -C "$BUILD" >&2
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    install_packages
    build
    exec "$BUILD/supervisor/ruvio" "$@"
    ;;
  test)
    install_packages
    build
    cd "$ROOT"
    RUVIO_BUILD="$BUILD" exec /usr/bin/python3 tests/run.py "$@"
    ;;
  build)
    install_packages
    build
    ;;
  *)
    echo "usage: $0 run|test|build [args…]" >&2
    exit 2
    ;;
esac
