#!/usr/bin/env bash
# check_package.sh BUILD_DIR: builds the .deb with cpack, installs it into a
# fresh root with dpkg (--root: nothing touches this machine's system),
# runs the installed binary, verifies the installed units, and removes it:
# the config file stays (a conffile), the files go.
set -euo pipefail
build="$1"
command -v dpkg-deb >/dev/null && command -v cpack >/dev/null || { echo "no dpkg/cpack"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# What the package holds, also in a tree that built only some targets
# (scripts/tsan.sh): the binary and its man pages.
targets=(nodeprobe nodeprobe-agent)
command -v help2man >/dev/null && targets+=(man_pages)  # as cmake/ManPages.cmake decides
cmake --build "$build" --target "${targets[@]}" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/pkg/nodeprobe_*.deb)
info=$(dpkg-deb -I "$deb")
echo "$info" | grep -q "^ Depends:.*libgrpc++1.51" || { echo "no library dependencies: $info"; exit 1; }
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/nodeprobe/nodeprobe.yaml \
  || { echo "/etc/nodeprobe/nodeprobe.yaml is not a conffile"; exit 1; }
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Dependencies are this machine's libraries (the fresh root has none);
# maintainer scripts run unchrooted (the root has no /bin/sh).
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" > "$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log"; exit 1; }
out=$("$root/usr/bin/nodeprobe" version)
[ "$out" = "nodeprobe $(dpkg-deb -f "$deb" Version)" ] || { echo "installed binary says: $out"; exit 1; }
# The agent's own binary, beside it (`nodeprobe agent` execs it from there).
out=$("$root/usr/bin/nodeprobe-agent" --version)
[ "$out" = "$(dpkg-deb -f "$deb" Version)" ] || { echo "installed agent binary says: $out"; exit 1; }
for page in nodeprobe nodeprobe-run nodeprobe-slurm-health; do
  zcat "$root/usr/share/man/man1/$page.1.gz" 2>/dev/null | grep -q '^\.SH OPTIONS' \
    || { echo "no man page $page(1) with its options"; exit 1; }
done
# nodeprobe-findings(1) lists the finding table, each code with its fix.
zcat "$root/usr/share/man/man1/nodeprobe-findings.1.gz" 2>/dev/null |
  grep -A4 '^\\fBRDMA_PORT_DOWN' | grep -q '^Fix: check the cable' \
  || { echo "nodeprobe-findings(1) does not list RDMA_PORT_DOWN with its fix"; exit 1; }
[ -x "$root/usr/lib/nodeprobe/nodeprobe-slurm-health" ] \
  || { echo "the Slurm health check is not installed executable"; exit 1; }
if command -v systemd-analyze >/dev/null; then
  # The units name /usr/bin/nodeprobe, which is in the fresh root, not here.
  said=$(cd "$root/lib/systemd/system" && systemd-analyze verify --man=no nodeprobe-*.service \
         nodeprobe-sweep.timer 2>&1 | grep -v "Command /usr/bin/nodeprobe is not executable" || true)
  [ -z "$said" ] || { echo "systemd-analyze verify: $said"; exit 1; }
fi
dpkg --root="$root" --force-depends --force-script-chrootless -r nodeprobe > "$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log"; exit 1; }
[ ! -e "$root/usr/bin/nodeprobe" ] || { echo "removed, but /usr/bin/nodeprobe is still there"; exit 1; }
[ -f "$root/etc/nodeprobe/nodeprobe.yaml" ] || { echo "remove took the conffile"; exit 1; }
echo "package $(basename "$deb"): installs, runs, units verify, removes"
