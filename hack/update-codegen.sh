#!/usr/bin/env bash
# Regenerates every checked-in generated file: the deepcopy functions of the
# example and golden API packages (k8s.io/code-generator's deepcopy-gen), then
# their syncers (syncer-gen). hack/verify-codegen.sh checks that this leaves
# the tree unchanged.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
header=hack/boilerplate.go.txt

step() { printf '[codegen] %s\n' "$*" >&2; }

step "go generate ./examples/crd: deepcopy-gen and syncer-gen from its go:generate lines"
go generate ./examples/crd

step "go generate ./examples/ctrl: syncer-gen of the Job alias in examples/ctrl/kinds"
go generate ./examples/ctrl

step "deepcopy-gen: internal/golden/api (not its aliases, which hold no types of their own)"
# shellcheck disable=SC2046 # one argument per package
go tool deepcopy-gen --output-file zz_generated.deepcopy.go --go-header-file "${header}" $(go list ./internal/golden/api/... | grep -v '/aliases$')

step "syncer-gen: examples/builtin/kinds -> examples/builtin/syncers"
go tool syncer-gen -v --output-dir examples/builtin/syncers --go-header-file "${header}" ./examples/builtin/kinds

step "syncer-gen: internal/golden/api -> internal/golden/syncers"
go tool syncer-gen -v --output-dir internal/golden/syncers --go-header-file "${header}" ./internal/golden/api/...
