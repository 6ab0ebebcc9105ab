# Sourced by tools/toolchain/cc and tools/toolchain/tool (bash, set -euo pipefail).
# Parses --arch / --sframe, sets TC_ARCH TC_TRIPLE TC_VER TC_SFRAME and
# TC_ARGS (remaining arguments), and provides tc_bindir.

TC_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tc_usage_die() { echo "$TC_PROG: $*" >&2; echo "usage: $TC_USAGE" >&2; exit 2; }

tc_parse() {
	TC_ARCH= TC_SFRAME=v3
	TC_ARGS=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--arch) [ $# -ge 2 ] || tc_usage_die "--arch needs a value"; TC_ARCH=$2; shift 2 ;;
		--arch=*) TC_ARCH=${1#*=}; shift ;;
		--sframe) [ $# -ge 2 ] || tc_usage_die "--sframe needs a value"; TC_SFRAME=$2; shift 2 ;;
		--sframe=*) TC_SFRAME=${1#*=}; shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	TC_ARGS=("$@")
	case "$TC_ARCH" in
	x86_64|amd64|x86) TC_ARCH=x86_64; TC_TRIPLE=x86_64-linux-gnu ;;
	arm64|aarch64) TC_ARCH=arm64; TC_TRIPLE=aarch64-linux-gnu ;;
	s390x|s390) TC_ARCH=s390x; TC_TRIPLE=s390x-linux-gnu ;;
	"") tc_usage_die "--arch is required" ;;
	*) tc_usage_die "unknown --arch '$TC_ARCH' (x86_64, arm64, s390x)" ;;
	esac
	case "$TC_SFRAME" in
	v3|3) TC_SFRAME=v3; TC_VER=2.47 ;;
	v2|2) TC_SFRAME=v2; TC_VER=2.44
		if [ "$TC_ARCH" = s390x ]; then
			echo "$TC_PROG: binutils 2.44 (SFrame V2) has no s390x SFrame support; use --sframe v3" >&2
			exit 2
		fi ;;
	*) tc_usage_die "unknown --sframe '$TC_SFRAME' (v3 or v2)" ;;
	esac
}

# Where built toolchains live: outside the clone, like ccache's cache, so a
# fresh clone on a machine that built them once does not spend 20 minutes
# building them again.  A toolchain is keyed by its Debian source version
# (build-binutils' stamp), so clones of different commits can share it.
tc_cache_dir() {
	local d=${SFRAME_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/sframe-toolchain}
	mkdir -p "$d" && (cd "$d" && pwd)
}

# Print the binutils bin directory, building the toolchain first if needed.
# Build chatter goes to stderr.
tc_bindir() {
	local b
	b=$(tc_cache_dir)/binutils-$TC_VER/$TC_TRIPLE
	if [ -f "$b/.stamp" ] && [ -x "$b/bin/as" ] && [ -x "$b/bin/ld" ] &&
	   [ -x "$b/bin/objdump" ] && [ -x "$b/bin/readelf" ]; then
		(cd "$b/bin" && pwd)
		return 0
	fi
	"$TC_HERE/build-binutils" --version "$TC_VER" --target "$TC_TRIPLE" | tail -n 1
}
