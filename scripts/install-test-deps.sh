#!/usr/bin/env bash
# Installs what the test suite needs beyond the JDK and Go, idempotently: Debian's chromium (the HTML report is checked
# in a real browser) and fonts for its screenshots; nginx (a peer server the kernel probe measures); clang-14 and
# libbpf-dev (to check that the committed BPF object of the probe matches its source); postgresql (the history's database, its tests). Root is needed for apt-get; without it, the missing packages are named.
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
[[ -d /usr/share/fonts/truetype/dejavu ]] || missing+=(fonts-dejavu-core)
command -v taskset >/dev/null || missing+=(util-linux)
command -v nginx >/dev/null || missing+=(nginx-light)
command -v clang-14 >/dev/null || missing+=(clang-14)
[[ -f /usr/include/bpf/bpf_helpers.h ]] || missing+=(libbpf-dev)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if (( ${#missing[@]} == 0 )); then exit 0; fi
if [[ $(id -u) -ne 0 ]]; then
  echo "pacer tests need: ${missing[*]} (apt-get install ${missing[*]}, as root)" >&2
  exit 1
fi
echo "installing test dependencies: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# the nginx package starts a system nginx on port 80; the tests run their own
systemctl disable --now nginx >/dev/null 2>&1 || nginx -s quit >/dev/null 2>&1 || true
# so does the postgresql package, on 5432; the history's tests start clusters of their own
systemctl disable --now postgresql >/dev/null 2>&1 || pg_ctlcluster --mode fast 15 main stop >/dev/null 2>&1 || true
