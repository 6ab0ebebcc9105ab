# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2034 # sets variables for the scripts that source it
#
# Sourced by tools/toolchain/cc and tools/toolchain/tool (bash, set -euo pipefail).
# Parses --arch / --sframe, sets TC_ARCH TC_TRIPLE TC_VER TC_SFRAME and
# TC_ARGS (remaining arguments), and provides tc_bindir.

# cc and tool run for every compile and every objdump of the tests: what
# they do before exec-ing the real tool starts no process once the
# toolchain is built, for on some machines each process started costs
# milliseconds (configure scripts and corpora of many files pay it)
TC_HERE=${BASH_SOURCE[0]%/*}
[ "$TC_HERE" != "${BASH_SOURCE[0]}" ] || TC_HERE=.
case $TC_HERE in /*) ;; *) TC_HERE=$PWD/$TC_HERE ;; esac
# shellcheck source=tools/lib/debian-mirror.sh
. "$TC_HERE/../lib/debian-mirror.sh"

tc_usage_die() { echo "$TC_PROG: $*" >&2; echo "usage: $TC_USAGE" >&2; exit 2; }

tc_parse() {
	TC_ARCH='' TC_SFRAME=v3
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
# tc_cache_path sets TC_CACHE, that directory's absolute path, without
# creating it; tc_cache_dir creates it and prints it.
tc_cache_path() {
	TC_CACHE=${SFRAME_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/sframe-toolchain}
	case $TC_CACHE in /*) ;; *) TC_CACHE=$PWD/$TC_CACHE ;; esac
}
tc_cache_dir() {
	tc_cache_path
	mkdir -p "$TC_CACHE" && (cd "$TC_CACHE" && pwd)
}

# tc_toolchain_ok DIR: DIR (binutils-<ver>/<triple>) holds a finished
# toolchain: the four tools and libsframe.  A packaged one's wrappers find
# their loader and libraries relative to themselves; the first ones named
# an absolute path, which a cache moved elsewhere breaks: not finished.
tc_toolchain_ok() {
	local b=$1
	[ -f "$b/.stamp" ] && [ -x "$b/bin/as" ] && [ -x "$b/bin/ld" ] &&
		[ -x "$b/bin/objdump" ] && [ -x "$b/bin/readelf" ] &&
		[ -f "$b/libsframe/lib/libsframe.a" ] &&
		{ [ ! -d "$b/pkg" ] || ! grep -q -- '--library-path "/' "$b/bin/as"; }
}

# tc_set_bindir: TC_BIN, the binutils bin directory, building the
# toolchain first if needed (its chatter to stderr).
tc_set_bindir() {
	tc_cache_path
	TC_BIN=$TC_CACHE/binutils-$TC_VER/$TC_TRIPLE/bin
	tc_toolchain_ok "${TC_BIN%/bin}" && return 0
	TC_BIN=$("$TC_HERE/build-binutils" --version "$TC_VER" --target "$TC_TRIPLE" | tail -n 1)
	[ -n "$TC_BIN" ]
}

# Print the binutils bin directory, building the toolchain first if needed.
tc_bindir() {
	tc_set_bindir && echo "$TC_BIN"
}

# tc_fetch_source PKG DEBVER: Debian's source package PKG at version DEBVER
# into $(tc_cache_dir)/src, through a private apt configuration there (deb-src
# for sid, trixie and bookworm, signed-by debian-archive-keyring); the
# machine's apt setup is not touched.  apt checks the InRelease signature and
# the files' hashes; the SHA-256 sums of the .dsc are checked again here, on
# every call, so a cached file that changed is fetched anew.
tc_fetch_source() {
	local pkg=$1 debver=$2 tc src apt dsc
	tc=$(tc_cache_dir)
	src=$tc/src apt=$tc/apt
	dsc=$src/${pkg}_${debver#*:}.dsc
	tc_source_sums_ok "$dsc" && return 0
	(
		exec 8>"$tc/.lock-apt"
		flock 8
		tc_source_sums_ok "$dsc" && exit 0
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" \
			"$apt/sourceparts" "$apt/prefparts" "$src"
		local kr=/usr/share/keyrings/debian-archive-keyring.gpg suite mirror
		mirror=$(debian_mirror) || return 1
		for suite in sid trixie bookworm; do
			echo "deb-src [signed-by=$kr] $mirror $suite main"
		done >"$apt/sources.list.new"
		: >"$apt/preferences"
		local -a opt=(
			-o "Dir::Etc::SourceList=$apt/sources.list"
			-o "Dir::Etc::SourceParts=$apt/sourceparts"
			-o "Dir::Etc::Preferences=$apt/preferences"
			-o "Dir::Etc::PreferencesParts=$apt/prefparts"
			-o "Dir::State::Lists=$apt/lists"
			-o "Dir::Cache=$apt/cache"
			-o "Acquire::Languages=none"
			-o "DPkg::Lock::Timeout=900"
		)
		[ "$(id -u)" = 0 ] && opt+=(-o "APT::Sandbox::User=root")
		cd "$src" || return 1
		# A list that changed, or a version the lists do not know yet:
		# update first.
		if ! cmp -s "$apt/sources.list.new" "$apt/sources.list" ||
		   ! apt-get "${opt[@]}" source --download-only "$pkg=$debver" >&2; then
			mv -f "$apt/sources.list.new" "$apt/sources.list"
			echo "$TC_PROG: apt-get update (private config in $apt)" >&2
			apt-get "${opt[@]}" update >&2
			echo "$TC_PROG: apt-get source --download-only $pkg=$debver" >&2
			apt-get "${opt[@]}" source --download-only "$pkg=$debver" >&2
		fi
		rm -f "$apt/sources.list.new"
	)
	tc_source_sums_ok "$dsc" || {
		echo "$TC_PROG: the files of $dsc do not match its SHA-256 sums" >&2
		return 1
	}
}

# tc_source_sums_ok DSC: every file DSC lists is there with its SHA-256 sum.
tc_source_sums_ok() {
	local dsc=$1 dir sum name n=0
	[ -f "$dsc" ] || return 1
	dir=$(dirname "$dsc")
	while read -r sum _ name; do
		[ -n "$name" ] || continue
		[ "$(sha256sum "$dir/$name" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] || return 1
		n=$((n + 1))
	done < <(awk '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f' "$dsc")
	[ "$n" -gt 0 ]
}
