#!/usr/bin/env bash
# Installs what agentctl needs to build, test and benchmark on Debian/Ubuntu.
# Safe to run again: it installs only the packages that are missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libncurses-dev libjansson-dev libgit2-dev libcmocka-dev
  libpq-dev postgresql postgresql-common libzstd-dev zstd
  tmux jq nodejs ripgrep
  clang libclang-rt-dev
  man-db groff-base bash-completion zsh
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
    || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
