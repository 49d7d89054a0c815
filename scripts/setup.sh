#!/usr/bin/env bash
# Sets dictum up on a fresh Debian/Ubuntu machine: the system packages it uses (the pocketsphinx recognizer
# with its English model, espeak-ng for the pronunciation of custom words it does not know, ffmpeg for
# non-WAV audio, tools for model archives and test fixtures, systemd-analyze to check the service unit,
# redis-server for the job queue's tests, Debian's chromium and firefox-esr for the web app's browser tests,
# openssl for the certificate of the realtime SDK test, which only speaks wss, and an X desktop for the
# desktop tests of `dictum dictate --type`: the Xvfb server, xdotool, and xterm as the focused window),
# then the npm dependencies. Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(pocketsphinx pocketsphinx-en-us espeak-ng ffmpeg bzip2 unzip zip sox python3-onnx systemd redis-server chromium firefox-esr openssl xvfb xdotool xterm)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm ci --no-audit --no-fund
fi

# tap builds its Test class from package.json's plugin list (`tap.plugin`). A run that finds the built one
# stale rebuilds it, but still starts every test process with the default plugins' module hooks (TypeScript
# and mocks: each test file's imports go through three loaders): the first `npm test` of a fresh clone took
# ~1.5 times as long. Built here once, every run starts with the plugins the suite uses.
if [ ! -f node_modules/@tapjs/test/test-built/src/.dictum-plugins ] ||
  [ package.json -nt node_modules/@tapjs/test/test-built/src/.dictum-plugins ]; then
  echo "setup: building tap's test class for package.json's plugins"
  npx tap build >/dev/null
  touch node_modules/@tapjs/test/test-built/src/.dictum-plugins
fi
echo "setup: done"
