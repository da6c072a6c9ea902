#!/usr/bin/env bash
# Fails when a checked-in generated file differs from what
# hack/update-codegen.sh makes now: it copies the tree twice, runs that
# script in one copy and compares the two.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${tmp}/before" "${tmp}/after"

# The tree as git sees it: tracked and new files, not ignored ones such as bin/.
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
	tar --null -T - -cf "${tmp}/tree.tar"
tar -xf "${tmp}/tree.tar" -C "${tmp}/before"
tar -xf "${tmp}/tree.tar" -C "${tmp}/after"

if ! (cd "${tmp}/after" && hack/update-codegen.sh) >"${tmp}/update.log" 2>&1; then
	cat "${tmp}/update.log" >&2
	echo "verify-codegen: hack/update-codegen.sh failed" >&2
	exit 1
fi

if ! diff -r -u "${tmp}/before" "${tmp}/after" >"${tmp}/drift"; then
	sed "s|${tmp}/before/||; s|${tmp}/after/||" "${tmp}/drift" >&2
	echo "verify-codegen: generated files are out of date; run hack/update-codegen.sh (make generate)" >&2
	exit 1
fi
echo "verify-codegen: generated files are up to date" >&2
