#!/usr/bin/env bash
# Fails when a checked-in generated file differs from what
# hack/update-codegen.sh makes now: it runs that script on a copy of the
# tree and compares the two.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

# The tree as git sees it (tracked and new files, not ignored ones such as bin/).
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
	tar --null -T - -cf - | tar -xf - -C "${tmp}"

(cd "${tmp}" && hack/update-codegen.sh) 2>"${tmp}.log" || {
	cat "${tmp}.log" >&2
	echo "verify-codegen: hack/update-codegen.sh failed" >&2
	exit 1
}
rm -f "${tmp}.log"

if ! diff -r -u --exclude=bin "${root}" "${tmp}" >"${tmp}/.diff" 2>&1; then
	grep -v '^Only in '"${root}" "${tmp}/.diff" >"${tmp}/.drift" || true
	if [[ -s "${tmp}/.drift" ]]; then
		cat "${tmp}/.drift" >&2
		echo "verify-codegen: generated files are out of date; run hack/update-codegen.sh (make generate)" >&2
		exit 1
	fi
fi
echo "verify-codegen: generated files are up to date" >&2
