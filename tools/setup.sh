#!/usr/bin/env bash
# Installs every Debian package sgdsim needs. Does nothing when all are present.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libsimgrid-dev libboost-graph-dev nlohmann-json3-dev catch2 libeigen3-dev zlib1g-dev
  libbenchmark-dev libcli11-dev libfmt-dev libhwy-dev libzstd-dev
  gnuplot-nox dataset-fashion-mnist python3-jsonschema
  libtorch-dev  # the deep-learning models (lenet5, resnet, torchscript); SGDSIM_TORCH=AUTO finds it
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages: ${missing[*]}; run as root (or install them with apt-get)" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
