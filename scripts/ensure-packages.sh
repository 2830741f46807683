#!/usr/bin/env bash
# ensure-packages.sh [--check]: the distribution packages the set-up steps would install, in ONE apt-get call.
# dpkg takes a lock, so the engine's docker.io, the browser's chromium-headless-shell and the oracle root's
# mmdebstrap, installed by three steps, ran one after the other, each with its own `apt-get update`; here they are
# fetched and unpacked together, while pip runs. Only as root on a machine with apt-get; elsewhere (a laptop) it
# does nothing and the steps that need a package say what to install. The steps keep their own installs, for
# `make engine` or `make browser` alone. With --check: exit 0 when nothing is wanted (scripts/step's --unless).
# No recommended packages, here or in the steps' own installs: with them apt brought 350 packages (systemd, GTK, CUPS,
# Samba's libraries, binutils, gnupg) where the set-up needs 111, and dpkg unpacks and configures each.
set -euo pipefail

[ "$(uname -s)" = "Linux" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 || exit 0

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
playwright_browser() { compgen -G "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/chromium*" >/dev/null; }
oracle_image() { command -v docker >/dev/null 2>&1 && ${PYTHON:-python3} -m oracle preflight >/dev/null 2>&1; }

wanted=()
command -v dockerd >/dev/null 2>&1 || wanted+=(docker.io)
installed chromium-headless-shell || playwright_browser || wanted+=(chromium-headless-shell)
# Playwright's driver (a node binary in its wheel) links libatomic, which a minimal Debian lacks.
installed libatomic1 || wanted+=(libatomic1)
# mmdebstrap builds the oracle's root where no verified image is on the engine and none can be pulled; a machine
# without an engine has no image yet. Where a registry answers the pull wins and mmdebstrap goes unused.
command -v mmdebstrap >/dev/null 2>&1 || oracle_image || wanted+=(mmdebstrap)

if [ "${1:-}" = "--check" ]; then
  [ "${#wanted[@]}" = 0 ]
  exit
fi
[ "${#wanted[@]}" = 0 ] && exit 0
echo "Installing Debian's ${wanted[*]} ..." >&2
# The same lock as the steps' own installs (oracle/build.py's APT_LOCK), in case one of them runs beside this.
flock /run/lock/everyday-evals-apt sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${wanted[*]}" >/dev/null
