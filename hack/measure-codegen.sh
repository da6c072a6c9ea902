#!/usr/bin/env bash
# Measures syncer-gen against k8s.io/code-generator's informer-gen + lister-gen
# on the same input, every +genclient type of k8s.io/api (every group and
# version), in one run: ROUNDS rounds (default 5), the three tools
# interleaved in each, each writing to a fresh folder; prints the medians and
# the ratio. The tools are built first, outside the timing, from this
# module's go.mod (syncer-gen from this tree, the others at the version the
# tool lines pin).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
rounds="${ROUNDS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

echo "building syncer-gen, informer-gen and lister-gen ($(go list -m -f '{{.Version}}' k8s.io/code-generator))..." >&2
go build -o "${work}/bin/" ./cmd/syncer-gen k8s.io/code-generator/cmd/informer-gen k8s.io/code-generator/cmd/lister-gen
# Warm the go command's caches so that no tool pays for them.
go list k8s.io/api/... >/dev/null

# seconds CMD...: runs CMD with its output discarded and prints its wall time in seconds.
seconds() {
	local start end
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
	end=$(date +%s.%N)
	awk -v a="${start}" -v b="${end}" 'BEGIN {print b - a}'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

sg=() ig=() lg=()
for r in $(seq 1 "${rounds}"); do
	out="${work}/round${r}"
	sg+=("$(seconds "${work}/bin/syncer-gen" --output-dir "${out}/syncers" --output-pkg example.com/out/syncers --all-genclient k8s.io/api/...)")
	lg+=("$(seconds "${work}/bin/lister-gen" --output-dir "${out}/listers" --output-pkg example.com/out/listers k8s.io/api/...)")
	ig+=("$(seconds "${work}/bin/informer-gen" --output-dir "${out}/informers" --output-pkg example.com/out/informers \
		--versioned-clientset-package k8s.io/client-go/kubernetes --listers-package example.com/out/listers k8s.io/api/...)")
	printf 'round %d: syncer-gen %.2fs, lister-gen %.2fs, informer-gen %.2fs\n' "${r}" "${sg[-1]}" "${lg[-1]}" "${ig[-1]}" >&2
done

types=$(find "${work}/round1/syncers" -name '*_syncer.go' | wc -l)
s=$(printf '%s\n' "${sg[@]}" | median)
l=$(printf '%s\n' "${lg[@]}" | median)
i=$(printf '%s\n' "${ig[@]}" | median)
pair=$(awk -v a="${l}" -v b="${i}" 'BEGIN {print a + b}')
printf '\nk8s.io/api, %d +genclient types, median of %d rounds on %s (%d cores):\n' "${types}" "${rounds}" "$(uname -m)" "$(nproc)"
printf '| tool | time |\n|---|---|\n'
printf '| syncer-gen | %.2f s |\n' "${s}"
printf '| lister-gen | %.2f s |\n' "${l}"
printf '| informer-gen | %.2f s |\n' "${i}"
printf '| informer-gen + lister-gen | %.2f s |\n' "${pair}"
printf '\ncodegen: syncer_gen_s=%.2f pair_s=%.2f ratio=%.1f\n' "${s}" "${pair}" "$(awk -v a="${pair}" -v b="${s}" 'BEGIN {print a / b}')"
