#!/usr/bin/env bash
# Installs the Debian packages nodeprobe builds and tests with (only those
# missing; a no-op in about a second when all are there), then configures
# and builds into build/ (unless NODEPROBE_SETUP_NO_BUILD is set: test.sh
# builds its own trees with np_build). Sourced by scripts/run.sh and
# scripts/test.sh.
# CUDA and NCCL are used from /usr/local/cuda when present, never fetched.
set -euo pipefail

NODEPROBE_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config lld
  libibverbs-dev librdmacm-dev ibverbs-providers
  libhwloc-dev libxml2-dev liblldpctl-dev lldpd libibnetdisc-dev libibmad-dev libibumad-dev
  libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libsqlite3-dev libjemalloc-dev libabsl-dev libcli11-dev libyaml-cpp-dev libre2-dev libarchive-dev
  prometheus-cpp-dev prometheus
  libgtest-dev libgmock-dev
  iproute2 iperf3 fio openssl libssl-dev bzip2 tar
  clang libclang-rt-14-dev universal-ctags
  libgloo-dev
  chromium
  slurm-wlm munge help2man
  ibsim-utils libumad2sim0 infiniband-diags
)

missing=()
for pkg in "${NODEPROBE_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
# np_apt_install PKG...: installs Debian packages (sudo when not root).
np_apt_install() {
  echo "setup: installing $*" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ((${#missing[@]})); then
  np_apt_install "${missing[@]}"
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# np_install_test_tools: what only the tests need beyond Debian's packages:
# the Kubernetes manifest validator's npm packages, pinned by
# tests/deploy/k8s/package-lock.json (npm ci; again only when the lock
# changed). Node itself from Debian when the machine has none.
np_install_test_tools() {
  local tool="$ROOT/tests/deploy/k8s"
  # By command, not package: a machine's Node may come from elsewhere
  # (its npm bundled), and Debian's npm would conflict with it.
  command -v npm >/dev/null || np_apt_install nodejs npm
  if ! cmp -s "$tool/package-lock.json" "$tool/node_modules/.package-lock.json.installed" 2>/dev/null; then
    (cd "$tool" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) &&
      cp "$tool/package-lock.json" "$tool/node_modules/.package-lock.json.installed"
  fi
}
JOBS="${NODEPROBE_JOBS:-$(nproc)}"

# np_build DIR [CMAKE_ARGS...]: configures DIR once, then builds it (only
# $NP_BUILD_TARGET when set).
np_build() {
  local dir="$1"
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  fi
  # NP_BUILD_TARGET: one or more targets, separated by spaces.
  # shellcheck disable=SC2086
  cmake --build "$dir" -j "$JOBS" ${NP_BUILD_TARGET:+--target $NP_BUILD_TARGET}
}

if [ -z "${NODEPROBE_SETUP_NO_BUILD:-}" ]; then
  BUILD_DIR="${NODEPROBE_BUILD_DIR:-$ROOT/build}"
  np_build "$BUILD_DIR"
  export NODEPROBE_BIN="$BUILD_DIR/bin/nodeprobe"
fi
