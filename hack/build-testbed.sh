#!/usr/bin/env bash
# Builds the real test bed, etcd and kube-apiserver, from the Go module proxy
# into bin/ (ignored by git). Each binary is built once per version and reused.
#
#   hack/build-testbed.sh            build what is missing
#   FORCE=1 hack/build-testbed.sh    rebuild everything
#
# KUBE_VERSIONS lists the kube-apiserver versions to build; the first is the
# test bed's default (bin/kube-apiserver.default names it). Each is kept as
# bin/kube-apiserver-<version>/kube-apiserver, so that the process keeps its
# name. The others are what the suite also proves the syncer against.
#
# kube-apiserver comes from k8s.io/kubernetes with every staging module that
# its go.mod replaces with ./staging/... pointed at the published v0.<minor>.<patch>.
set -euo pipefail

KUBE_VERSIONS="${KUBE_VERSIONS:-v1.37.2 v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${root}/bin"
work="${bin}/.build"
mkdir -p "${bin}" "${work}"

# One build at a time: test packages run in parallel and may all ask for it.
exec 9>"${bin}/.lock"
flock 9

log() { printf '[testbed] %s\n' "$*" >&2; }

# quiet CMD...: runs CMD, showing its output only when it fails.
quiet() {
	local out
	if ! out="$("$@" 2>&1)"; then
		printf '%s\n' "${out}" >&2
		log "failed: $*"
		return 1
	fi
}

# up_to_date NAME VERSION: true when bin/NAME exists and was built for VERSION.
up_to_date() {
	[[ -z "${FORCE:-}" && -x "${bin}/$1" && "$(cat "${bin}/$1.version" 2>/dev/null)" == "$2" ]]
}

# install BINARY: moves the freshly built binary into place atomically.
install_bin() {
	mv -f "${work}/$1.tmp" "${bin}/$1"
	echo "$2" >"${bin}/$1.version"
}

build_etcd() {
	if up_to_date etcd "${ETCD_VERSION}"; then return; fi
	log "building etcd ${ETCD_VERSION} (once; cached in bin/)"
	local dir="${work}/etcd"
	rm -rf "${dir}" && mkdir -p "${dir}"
	(
		cd "${dir}"
		go mod init syncer-gen.local/testbed/etcd >/dev/null 2>&1
		quiet go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
		CGO_ENABLED=0 go build -trimpath -o "${work}/etcd.tmp" go.etcd.io/etcd/server/v3
	)
	install_bin etcd "${ETCD_VERSION}"
}

# build_kube_apiserver VERSION: builds bin/kube-apiserver-VERSION/kube-apiserver.
build_kube_apiserver() {
	local KUBE_VERSION="$1"
	local name="kube-apiserver-${KUBE_VERSION}"
	mkdir -p "${bin}/${name}" "${work}/${name}"
	if up_to_date "${name}/kube-apiserver" "${KUBE_VERSION}"; then return; fi
	log "building kube-apiserver ${KUBE_VERSION} (once; a few minutes; cached in bin/)"
	local dir="${work}/${name}"
	local staging="v0.${KUBE_VERSION#v1.}"
	rm -rf "${dir}" && mkdir -p "${dir}"
	local kmod
	kmod="$(cd "${dir}" && go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
	[[ -f "${kmod}" ]] || { log "cannot read go.mod of k8s.io/kubernetes@${KUBE_VERSION}"; exit 1; }
	local goversion
	goversion="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "${kmod}")"
	{
		echo "module syncer-gen.local/testbed/kube-apiserver"
		echo
		echo "go ${goversion}"
		echo
		echo "require k8s.io/kubernetes ${KUBE_VERSION}"
		echo
		echo "replace ("
		# Every "k8s.io/x => ./staging/src/k8s.io/x" becomes "k8s.io/x => k8s.io/x v0.N.P".
		sed -n 's|^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*$|\t\1 => \1 '"${staging}"'|p' "${kmod}"
		echo ")"
	} >"${dir}/go.mod"
	local ldflags="-s -w"
	local pkg
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1"
		ldflags+=" -X ${pkg}.gitMinor=$(cut -d. -f2 <<<"${KUBE_VERSION}")"
		ldflags+=" -X ${pkg}.gitTreeState=clean"
	done
	(
		cd "${dir}"
		quiet go get "k8s.io/kubernetes/cmd/kube-apiserver@${KUBE_VERSION}"
		CGO_ENABLED=0 go build -trimpath -ldflags "${ldflags}" \
			-o "${work}/${name}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	)
	install_bin "${name}/kube-apiserver" "${KUBE_VERSION}"
	rm -rf "${dir}"
}

build_etcd
for v in ${KUBE_VERSIONS}; do
	build_kube_apiserver "${v}"
done
default="${KUBE_VERSIONS%% *}"
echo "${default}" >"${bin}/kube-apiserver.default.tmp" && mv -f "${bin}/kube-apiserver.default.tmp" "${bin}/kube-apiserver.default"
log "ready: ${bin}/etcd ($(cat "${bin}/etcd.version")); kube-apiserver ${KUBE_VERSIONS} (default ${default})"
