#!/usr/bin/env bash
# Ruvio's one entry point for people and CI (see INTERFACE.md):
#   ./deploy/ruvio.sh run   [ruvio flags…]  install what is missing, build, run in the foreground
#   ./deploy/ruvio.sh test  [runner flags…] install, build, run the whole test suite
#   ./deploy/ruvio.sh build                 install and build only (release build in build/)
#   ./deploy/ruvio.sh install               build, then install binaries, config and systemd unit
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RUVIO_BUILD:-$ROOT/build}"

# Debian 12 packages: toolchain, libraries, and the real Redis + clients the tests compare with.
PACKAGES=(
  g++ cmake meson ninja-build pkg-config
  libuv1-dev libmimalloc-dev libcereal-dev libspdlog-dev libfmt-dev doctest-dev libcxxopts-dev
  redis-server redis-tools python3-redis
  # operations (issue 5): admin HTTP parser, eBPF tracer toolchain, USDT header, promtool
  # and systemd-analyze for the tests
  libhttp-parser-dev clang bpftool libbpf-dev systemtap-sdt-dev prometheus systemd
  # the source checks of the test suite (tests/source/)
  clang-format
  # libFuzzer runtime for the fuzz targets (tests/fuzz), built and run by tests/source
  libclang-rt-14-dev
  # LZF compression of inner list nodes (list-compress-depth, issue 9)
  liblzf-dev
  # libraries instead of hand-written code (issue 24): CRC32C/CRC-64 (ISA-L), sd_notify,
  # ruvioctl's HTTP and JSON, the allocation tracer's symbolizer (elfutils' libdw), the key
  # hash (XXH3)
  libisal-dev libsystemd-dev libcurl4-openssl-dev rapidjson-dev libdw-dev libxxhash-dev
  # scripting (issue 12): Lua 5.1 and Redis's Lua libraries, msgpack-c, nettle (SHA1)
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libmsgpack-dev nettle-dev
  # real applications the tests run (tests/integration/test_apps_*): Sidekiq 6.4 on redis-rb 4.8
  # (redis-namespace for its {hash tag} namespace through the proxy port)
  ruby-sidekiq ruby-redis ruby-redis-namespace
  # real job queues the application tests run on Ruvio (tests/integration/test_apps_*.py)
  python3-rq python3-celery
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

# The ioredis cluster test's client and BullMQ (test_apps_bullmq), from npm into the build
# dir (not the repo): only when missing, and only where node/npm exist (the tests skip
# themselves otherwise).
install_test_npm() {
  if [ ! -d "$BUILD/npm/node_modules/ioredis" ] && command -v npm >/dev/null 2>&1; then
    echo "ruvio.sh: installing ioredis (npm) into $BUILD/npm" >&2
    npm install --prefix "$BUILD/npm" --no-audit --no-fund --loglevel=error ioredis >&2 ||
      echo "ruvio.sh: npm install ioredis failed; the ioredis cluster test will be skipped" >&2
  fi
  # BullMQ for test_apps_bullmq, pinned (5.81.5: engines node >=12.22, bundles its ioredis).
  if [ ! -d "$BUILD/npm/node_modules/bullmq" ] && command -v npm >/dev/null 2>&1; then
    echo "ruvio.sh: installing bullmq@5.81.5 (npm) into $BUILD/npm" >&2
    npm install --prefix "$BUILD/npm" --no-audit --no-fund --loglevel=error bullmq@5.81.5 >&2 ||
      echo "ruvio.sh: npm install bullmq failed; the bullmq app test will be skipped" >&2
  fi
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
    install_test_npm
    cd "$ROOT"
    RUVIO_BUILD="$BUILD" exec /usr/bin/python3 tests/run.py "$@"
    ;;
  build)
    install_packages
    build
    ;;
  install)
    # Binaries to /usr/local/bin, config to /etc/ruvio (kept if present), the systemd unit.
    install_packages
    build
    as_root install -m 0755 "$BUILD/supervisor/ruvio" "$BUILD/worker/ruvio-worker" \
      "$BUILD/supervisor/ruvioctl" /usr/local/bin/
    as_root install -d /etc/ruvio /var/lib/ruvio
    [ -f /etc/ruvio/ruvio.conf ] || as_root install -m 0644 "$ROOT/deploy/ruvio.conf" /etc/ruvio/
    as_root install -m 0644 "$ROOT/deploy/ruvio.service" /etc/systemd/system/ruvio.service
    if [ -d /run/systemd/system ]; then as_root systemctl daemon-reload; fi
    echo "ruvio.sh: installed; start with: systemctl enable --now ruvio" >&2
    ;;
  *)
    echo "usage: $0 run|test|build|install [args…]" >&2
    exit 2
    ;;
esac
