#!/usr/bin/env bash
# Records the API of a release, for hack/verify-api.sh to compare with:
#   - hack/api/<package>.apidiff: the exported API of each package of
#     hack/api/packages.txt, as apidiff's export data (golang.org/x/exp/apidiff);
#   - internal/golden/released/: the golden fixture's generated syncers as
#     this syncer-gen makes them, compiled by every build from then on, so
#     that code users generated and committed keeps compiling against a
#     newer runtime.
# Run it when a release is cut (CHANGELOG.md's "Unreleased" becomes that
# release), not on every change: verify-api judges changes against it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
hack/build-tool.sh apidiff
module="$(go list -m)"

grep -v '^#' hack/api/packages.txt | while read -r pkg; do
	[[ -n "${pkg}" ]] || continue
	printf '[api] %s\n' "${pkg}" >&2
	bin/apidiff -w "hack/api/${pkg//\//_}.apidiff" "${module}/${pkg}"
done

printf '[api] internal/golden/released: the generated syncers of internal/golden/syncers\n' >&2
rm -rf internal/golden/released
(cd internal/golden/syncers && find . -name '*.go' ! -name '*_test.go') | while read -r f; do
	mkdir -p "internal/golden/released/$(dirname "${f}")"
	cp "internal/golden/syncers/${f}" "internal/golden/released/${f}"
done
git rev-parse HEAD >hack/api/RELEASED_AT
