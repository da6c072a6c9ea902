#!/usr/bin/env bash
# Builds the real test bed, etcd and kube-apiserver, from the Go module proxy
# into bin/ (ignored by git). Each binary is built once per version and reused.
#
#   hack/build-testbed.sh                  etcd and every version in KUBE_VERSIONS (make test)
#   hack/build-testbed.sh --default        etcd and the default version only (make demo, make bench)
#   hack/build-testbed.sh v1.36.3 ...      etcd and the versions named
#   hack/build-testbed.sh --print-default  prints the default version, builds nothing
#   FORCE=1 hack/build-testbed.sh          rebuild
#
# KUBE_VERSIONS lists the kube-apiserver versions `make test` proves the
# syncer against; the first is the test bed's default (bin/kube-apiserver.default
# names it). Each is kept as bin/kube-apiserver-<version>/kube-apiserver, so
# that the process keeps its name.
#
# kube-apiserver comes from k8s.io/kubernetes with every staging module that
# its go.mod replaces with ./staging/... pointed at the published v0.<minor>.<patch>.
#
# A build is long on a small machine, so while one runs a line every
# TESTBED_HEARTBEAT_SECONDS (default 30) says what is being built, for how
# long so far, and what the last build of it took here (bin/*.took), or what
# it took when measured on two cores. TESTBED_BIN puts the binaries in
# another folder than bin/ (the script's own test does).
set -euo pipefail

KUBE_VERSIONS="${KUBE_VERSIONS:-v1.37.2 v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
HEARTBEAT="${TESTBED_HEARTBEAT_SECONDS:-30}"

# What each build took on a quiet 2-core machine of the project's CI kind,
# from a fresh clone with an empty Go build and module cache (2026-11-26:
# etcd 1m59s, kube-apiserver v1.37.2 9m55s, then v1.36.3 7m52s): the first
# kube-apiserver downloads and compiles most of the module graph, a second
# one reuses much of it. A busy machine takes up to twice as long.
MEASURED_ETCD="2 minutes"
MEASURED_FIRST_APISERVER="10 minutes"
MEASURED_NEXT_APISERVER="8 minutes"

default="${KUBE_VERSIONS%% *}"
versions="${KUBE_VERSIONS}"
case "${1:-}" in
--print-default)
	echo "${default}"
	exit 0
	;;
--default) versions="${default}" ;;
"") ;;
-*)
	echo "usage: $0 [--default | --print-default | VERSION...]" >&2
	exit 2
	;;
*) versions="$*" ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TESTBED_BIN:-${root}/bin}"
work="${bin}/.build"
mkdir -p "${bin}" "${work}"

# One build at a time: test packages run in parallel and may all ask for it.
exec 9>"${bin}/.lock"
flock 9

log() { printf '[testbed] %s\n' "$*" >&2; }

# duration SECONDS: "1m05s".
duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# quiet CMD...: runs CMD, showing its output only when it fails.
quiet() {
	local out
	if ! out="$("$@" 2>&1)"; then
		printf '%s\n' "${out}" >&2
		log "failed: $*"
		return 1
	fi
}

# expected NAME MEASURED: what building NAME should take, for the log.
expected() {
	local took
	took="$(cat "${bin}/$1.took" 2>/dev/null || true)"
	if [[ -n "${took}" ]]; then
		echo "its last build here took $(duration "${took}")"
	else
		echo "about $2 on two cores"
	fi
}

# with_heartbeat WHAT NAME MEASURED CMD...: runs CMD (its output shown only
# when it fails), logging a line every HEARTBEAT seconds while it runs, and
# records how long it took in bin/NAME.took.
with_heartbeat() {
	local what="$1" name="$2" measured="$3"
	shift 3
	local expect start pid rc=0 next
	expect="$(expected "${name}" "${measured}")"
	log "building ${what} (once, cached in bin/; ${expect})"
	start="${SECONDS}"
	next=$((start + HEARTBEAT))
	"$@" &
	pid=$!
	while kill -0 "${pid}" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)) && kill -0 "${pid}" 2>/dev/null; then
			log "still building ${what}: $(duration $((SECONDS - start))) so far (${expect})"
			next=$((next + HEARTBEAT))
		fi
	done
	wait "${pid}" || rc=$?
	if ((rc != 0)); then
		log "building ${what} failed after $(duration $((SECONDS - start)))"
		return "${rc}"
	fi
	echo $((SECONDS - start)) >"${bin}/${name}.took"
	log "built ${what} in $(duration $((SECONDS - start)))"
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

compile_etcd() {
	local dir="${work}/etcd"
	rm -rf "${dir}" && mkdir -p "${dir}" && cd "${dir}" || return
	quiet go mod init syncer-gen.local/testbed/etcd || return
	quiet go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" || return
	CGO_ENABLED=0 quiet go build -trimpath -o "${work}/etcd.tmp" go.etcd.io/etcd/server/v3
}

build_etcd() {
	if up_to_date etcd "${ETCD_VERSION}"; then return; fi
	with_heartbeat "etcd ${ETCD_VERSION}" etcd "${MEASURED_ETCD}" compile_etcd
	install_bin etcd "${ETCD_VERSION}"
}

# compile_kube_apiserver VERSION: builds kube-apiserver VERSION into bin/.build.
compile_kube_apiserver() {
	local KUBE_VERSION="$1"
	local name="kube-apiserver-${KUBE_VERSION}"
	local dir="${work}/${name}"
	local staging="v0.${KUBE_VERSION#v1.}"
	rm -rf "${dir}" && mkdir -p "${dir}" || return
	local kmod
	kmod="$(cd "${dir}" && go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
	[[ -f "${kmod}" ]] || { log "cannot read go.mod of k8s.io/kubernetes@${KUBE_VERSION}"; return 1; }
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
	} >"${dir}/go.mod" || return
	local ldflags="-s -w"
	local pkg
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1"
		ldflags+=" -X ${pkg}.gitMinor=$(cut -d. -f2 <<<"${KUBE_VERSION}")"
		ldflags+=" -X ${pkg}.gitTreeState=clean"
	done
	cd "${dir}" || return
	quiet go get "k8s.io/kubernetes/cmd/kube-apiserver@${KUBE_VERSION}" || return
	CGO_ENABLED=0 quiet go build -trimpath -ldflags "${ldflags}" \
		-o "${dir}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
}

# build_kube_apiserver VERSION: builds bin/kube-apiserver-VERSION/kube-apiserver.
build_kube_apiserver() {
	local name="kube-apiserver-$1"
	mkdir -p "${bin}/${name}" "${work}/${name}"
	if up_to_date "${name}/kube-apiserver" "$1"; then return; fi
	local measured="${MEASURED_FIRST_APISERVER}"
	if compgen -G "${bin}/kube-apiserver-v*/kube-apiserver" >/dev/null; then
		measured="${MEASURED_NEXT_APISERVER}"
	fi
	with_heartbeat "kube-apiserver $1" "${name}/kube-apiserver" "${measured}" compile_kube_apiserver "$1"
	install_bin "${name}/kube-apiserver" "$1"
	rm -rf "${work:?}/${name}"
}

build_etcd
for v in ${versions}; do
	build_kube_apiserver "${v}"
done
echo "${default}" >"${bin}/kube-apiserver.default.tmp" && mv -f "${bin}/kube-apiserver.default.tmp" "${bin}/kube-apiserver.default"
log "ready: ${bin}/etcd ($(cat "${bin}/etcd.version")); kube-apiserver ${versions} (default ${default})"
