#!/usr/bin/env bash
# Makes sure a Docker engine answers. The oracle needs one; containers it runs
# have no network, so a daemon without iptables or a bridge is enough here.
set -euo pipefail

engine_answers() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
  exit 0
fi

if [ "$(uname -s)" != "Linux" ] || [ "$(id -u)" != "0" ]; then
  echo "No Docker engine answers: start Docker (Docker Desktop, or 'sudo systemctl start docker') and run this again." >&2
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "Installing Debian's docker.io ..." >&2
  # One apt at a time: the other set-up steps (make -j) may be installing too (oracle/image.py takes the same lock).
  flock /run/lock/everyday-evals-apt sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io' >/dev/null
fi

log=/var/log/everyday-evals-dockerd.log
echo "Starting dockerd in the background (log: $log) ..." >&2
nohup dockerd --iptables=false --ip-masq=false --bridge=none >"$log" 2>&1 &

for _ in $(seq 1 60); do
  engine_answers && exit 0
  sleep 1
done
echo "dockerd did not answer within 60 s; see $log" >&2
exit 1
