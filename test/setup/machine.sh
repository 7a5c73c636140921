#!/usr/bin/env bash
# What the suites need from the machine besides node_modules: redis-server, Debian's Chromium, promtool,
# docker-compose (v1), python3 with venv (the Python client's suite) and PostgreSQL answering on
# 127.0.0.1:5432. `npm test` runs this first, so a machine that lacks one stops at once with the command that
# installs it instead of failing suites one by one; `.ci/run` runs it with --install (as root: apt-get, and
# starting the machine's PostgreSQL when it is down).
set -euo pipefail

install=false
[ "${1:-}" = "--install" ] && install=true

# command to look for, then the Debian package that brings it
needs=(
  "redis-server redis-server"
  "/usr/bin/chromium chromium"
  "promtool prometheus"
  "docker-compose docker-compose"
)

missing=()
for need in "${needs[@]}"; do
  read -r command package <<<"$need"
  command -v "$command" >/dev/null 2>&1 || missing+=("$package")
done

# The Python client's suite (test/client-python) makes a virtualenv: python3 with venv and ensurepip.
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=("python3-venv")

postgres_up() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }

if $install; then
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    for package in "${missing[@]}"; do
      # prometheus and docker-compose only for their binaries: no daemon, no Docker engine; Chromium with its fonts.
      case "$package" in
        prometheus | docker-compose) recommends=--no-install-recommends ;;
        *) recommends= ;;
      esac
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $recommends "$package" >/dev/null
    done
  fi
  if ! postgres_up && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
    for _ in $(seq 1 30); do postgres_up && break; sleep 1; done
  fi
  exit 0
fi

problems=()
[ ${#missing[@]} -gt 0 ] && problems+=("missing Debian packages: ${missing[*]}")
postgres_up || problems+=("no PostgreSQL answering on 127.0.0.1:5432 (the archive suites make a database per test file there)")
if [ ${#problems[@]} -gt 0 ]; then
  {
    echo "npm test needs more of this machine:"
    for problem in "${problems[@]}"; do echo "- $problem"; done
    echo "Install them (and start PostgreSQL) with: sudo bash test/setup/machine.sh --install"
  } >&2
  exit 1
fi
