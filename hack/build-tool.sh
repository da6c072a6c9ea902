#!/usr/bin/env bash
# Builds a tool from the Go module proxy into bin/ (ignored by git), at the
# version pinned here, and reuses it until the pin changes: the same
# up-to-date check as hack/build-testbed.sh.
#
#   hack/build-tool.sh staticcheck          build bin/staticcheck if missing or of another version
#   hack/build-tool.sh apidiff              build bin/apidiff likewise
#   FORCE=1 hack/build-tool.sh NAME         rebuild it
#
# The pins: staticcheck is the newest release that builds with Go 1.26
# (staticcheck 2026.2.2); apidiff (golang.org/x/exp, which has no releases)
# the newest pseudo-version the module proxy served on 2026-11-25. Move them
# forward here; make lint and make verify rebuild.
set -euo pipefail

name="${1:-}"
case "${name}" in
staticcheck) pkg="honnef.co/go/tools/cmd/staticcheck" version="${STATICCHECK_VERSION:-v0.8.2}" ;;
apidiff) pkg="golang.org/x/exp/cmd/apidiff" version="${APIDIFF_VERSION:-v0.0.0-20261113113407-e3970619a1a4}" ;;
*)
	echo "usage: $0 staticcheck|apidiff" >&2
	exit 2
	;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${root}/bin"
work="${bin}/.build/${name}"
mkdir -p "${bin}"

# One build of a tool at a time, apart from the test bed's lock (its builds are long).
exec 9>"${bin}/.lock-${name}"
flock 9

if [[ -z "${FORCE:-}" && -x "${bin}/${name}" && "$(cat "${bin}/${name}.version" 2>/dev/null)" == "${version}" ]]; then
	exit 0
fi
printf '[tools] building %s %s (once; cached in bin/)\n' "${name}" "${version}" >&2
rm -rf "${work}" && mkdir -p "${work}"
# go install pkg@version builds outside this module, from the proxy.
GOBIN="${work}" go install "${pkg}@${version}"
mv -f "${work}/${name}" "${bin}/${name}"
echo "${version}" >"${bin}/${name}.version"
rm -rf "${work}"
