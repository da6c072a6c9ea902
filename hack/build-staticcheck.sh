#!/usr/bin/env bash
# Builds staticcheck from the Go module proxy into bin/ (ignored by git), at
# the version pinned here, and reuses it until the pin changes: the same
# up-to-date check as hack/build-testbed.sh.
#
#   hack/build-staticcheck.sh            build bin/staticcheck if missing or of another version
#   FORCE=1 hack/build-staticcheck.sh    rebuild it
#
# STATICCHECK_VERSION is the newest release that builds with Go 1.26
# (staticcheck 2026.2.2); move it forward here, and make lint rebuilds.
set -euo pipefail

STATICCHECK_VERSION="${STATICCHECK_VERSION:-v0.8.2}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${root}/bin"
work="${bin}/.build/staticcheck"
mkdir -p "${bin}"

# One build at a time, apart from the test bed's lock (its builds are long).
exec 9>"${bin}/.lock-staticcheck"
flock 9

if [[ -z "${FORCE:-}" && -x "${bin}/staticcheck" && "$(cat "${bin}/staticcheck.version" 2>/dev/null)" == "${STATICCHECK_VERSION}" ]]; then
	exit 0
fi
printf '[lint] building staticcheck %s (once; cached in bin/)\n' "${STATICCHECK_VERSION}" >&2
rm -rf "${work}" && mkdir -p "${work}"
# go install pkg@version builds outside this module, from the proxy.
GOBIN="${work}" go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
mv -f "${work}/staticcheck" "${bin}/staticcheck"
echo "${STATICCHECK_VERSION}" >"${bin}/staticcheck.version"
rm -rf "${work}"
