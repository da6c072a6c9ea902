#!/usr/bin/env bash
# Fails on an incompatible change of the exported API (of the packages in
# hack/api/packages.txt, against what hack/update-api.sh recorded at the
# last release) that CHANGELOG.md does not list. apidiff
# (golang.org/x/exp/apidiff) tells what changed; a change is listed when
# CHANGELOG.md holds "<package>: <what apidiff names>", e.g.
# "ctrlsyncer: For" or "runtime: (*Syncer).Close", with the upgrade step.
# Compatible changes (additions) need nothing. A package with no record yet
# is new since the release: nothing to break.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
hack/build-tool.sh apidiff
module="$(go list -m)"
missing=0
checked=0

while read -r pkg; do
	[[ -n "${pkg}" && "${pkg}" != \#* ]] || continue
	record="hack/api/${pkg//\//_}.apidiff"
	[[ -f "${record}" ]] || continue
	checked=$((checked + 1))
	out="$(bin/apidiff -incompatible "${record}" "${module}/${pkg}")"
	while IFS= read -r line; do
		# apidiff's lines: "- NAME: what changed".
		[[ "${line}" == "- "* ]] || continue
		name="${line#- }"
		name="${name%%: *}"
		if ! grep -qF -- "${pkg}: ${name}" CHANGELOG.md; then
			echo "verify-api: ${pkg}: ${line#- } (incompatible, and CHANGELOG.md has no \"${pkg}: ${name}\")" >&2
			missing=$((missing + 1))
		fi
	done <<<"${out}"
done <hack/api/packages.txt

if ((missing > 0)); then
	echo "verify-api: ${missing} incompatible API change(s) not in CHANGELOG.md: keep the old form (marked Deprecated:) or list each, with its upgrade step, under Unreleased" >&2
	exit 1
fi
echo "verify-api: the API of ${checked} packages is compatible with the release recorded at $(cat hack/api/RELEASED_AT), or its breaks are in CHANGELOG.md" >&2
