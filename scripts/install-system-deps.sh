#!/usr/bin/env bash
# Installs the Debian packages LedgerRate needs outside Python:
#   site: pango and fonts for weasyprint (PDF rate cards, invoice PDFs)
#   test: the above plus Debian's chromium for the real-browser test
# Skips what is already there; says clearly what to do where it cannot install.
set -euo pipefail
group="${1:-site}"
packages=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core)
if [ "$group" = "test" ]; then
  packages+=(chromium)
fi
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing Debian packages: ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: apt-get not found. Install these packages with your system's package manager: ${missing[*]}" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "error: not root and no sudo. As root, run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "error: could not install ${missing[*]}; install them by hand and run make again" >&2
  exit 1
fi
