#!/usr/bin/env bash
# Installs every build and test dependency of Corral from Debian 12 packages.
# Idempotent: packages already present are skipped. Needs root (or sudo) for apt-get.
set -euo pipefail

packages=(
  build-essential cmake make g++ pkg-config
  clang clang-format clang-tidy libclang-rt-14-dev
  libyaml-dev libsimdjson-dev nlohmann-json3-dev
  libcli11-dev libfmt-dev libabsl-dev libxxhash-dev
  googletest libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
)
# Headless Chromium renders the HTML report in its end-to-end test.
if [ "${CORRAL_SKIP_BROWSER:-0}" != "1" ]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
