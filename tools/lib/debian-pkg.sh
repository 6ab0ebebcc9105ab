# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the scripts that run programs from Debian's binary packages
# without installing them (tools/vm/guest-tool, tools/toolchain/build-binutils):
# a private apt configuration for one suite and one architecture, with an
# empty package database so that apt fetches a package's whole dependency
# closure; the packages unpacked with dpkg-deb; a program gathered with its
# own dynamic loader and every library it needs into one flat directory,
# to be run as
#
#   DIR/<loader> --library-path DIR DIR/PROGRAM ...
#
# so that it never mixes its C library with the machine's.  apt checks the
# archive's signature and every package's hash; the machine's own apt
# setup is not touched.  The caller sources tools/lib/debian-mirror.sh too.

# debpkg_setup DIR SUITE DEBARCH: the private configuration in DIR, its
# package lists fetched when missing or older than a day; sets DEBPKG_APT,
# the options every apt command here takes.
debpkg_setup() {
	local dir=$1 suite=$2 debarch=$3 mirror
	local kr=/usr/share/keyrings/debian-archive-keyring.gpg

	mkdir -p "$dir"/{lists/partial,cache/archives/partial,sourceparts,prefparts}
	mirror=$(debian_mirror) || return 1
	echo "deb [signed-by=$kr] $mirror $suite main" >"$dir/sources.list.new"
	if ! cmp -s "$dir/sources.list.new" "$dir/sources.list"; then
		mv -f "$dir/sources.list.new" "$dir/sources.list"
		rm -f "$dir"/lists/*Packages*
	fi
	rm -f "$dir/sources.list.new"
	: >"$dir/preferences"
	[ -f "$dir/status" ] || : >"$dir/status"
	DEBPKG_APT=(
		-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=$dir/sourceparts"
		-o "Dir::Etc::Preferences=$dir/preferences"
		-o "Dir::Etc::PreferencesParts=$dir/prefparts"
		-o "Dir::State=$dir" -o "Dir::State::Lists=$dir/lists"
		-o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache"
		-o "APT::Architecture=$debarch" -o "APT::Architectures::=$debarch"
		-o "Acquire::Languages=none" -o "Debug::NoLocking=1"
	)
	[ "$(id -u)" = 0 ] && DEBPKG_APT+=(-o "APT::Sandbox::User=root")
	if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		apt-get "${DEBPKG_APT[@]}" update >"$dir/update.log" 2>&1 || {
			tail -n 5 "$dir/update.log" >&2
			echo "apt-get update ($suite, $debarch) failed" >&2
			return 1
		}
	fi
}

# debpkg_candidate PKG: the version the suite's index offers, or nothing.
debpkg_candidate() {
	local v
	v=$(apt-cache "${DEBPKG_APT[@]}" policy "$1" 2>/dev/null |
		sed -n 's/^ *Candidate: //p')
	[ "$v" = "(none)" ] || echo "$v"
}

# debpkg_unpack ROOT PKG[=VERSION]...: the packages and their dependency
# closure fetched and unpacked into ROOT/fs.
debpkg_unpack() {
	local root=$1 name v deb log
	shift
	log=$root/apt.log
	mkdir -p "$root/fs"
	apt-get "${DEBPKG_APT[@]}" install --download-only --no-install-recommends -y "$@" \
		>"$log" 2>&1 || { tail -n 5 "$log" >&2; return 1; }
	# The closure apt resolves (the archive cache may hold more), by file name
	apt-get "${DEBPKG_APT[@]}" install -s --no-install-recommends -y "$@" 2>/dev/null |
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p' >"$root/.inst"
	[ -s "$root/.inst" ] || { echo "apt resolved no packages for $*" >&2; return 1; }
	while read -r name v; do
		v=${v//:/%3a}
		deb=$(ls "$(debpkg_archives)/${name%%:*}_${v}_"*.deb 2>/dev/null | head -n 1)
		[ -n "$deb" ] || { echo "package file of $name $v not found" >&2; return 1; }
		dpkg-deb -x "$deb" "$root/fs"
	done <"$root/.inst"
}

debpkg_archives() {
	local a
	for a in "${DEBPKG_APT[@]}"; do
		case $a in Dir::Cache=*) echo "${a#Dir::Cache=}/archives"; return ;; esac
	done
}

# debpkg_gather FS TRIPLE STAGE PROGRAM [NAME]: FS/PROGRAM (a path inside
# the unpacked tree) copied to STAGE/NAME, with its loader (its file name
# in STAGE/.loader) and the DT_NEEDED closure of its libraries; a static
# program alone.
debpkg_gather() {
	local fs=$1 triple=$2 stage=$3 prog=$4 name=${5:-$(basename "$4")}
	local interp loader src d lib f
	local libdirs=("$fs/lib/$triple" "$fs/usr/lib/$triple" "$fs/lib" "$fs/usr/lib")
	local -a queue

	[ -f "$fs$prog" ] || { echo "the packages have no $prog" >&2; return 1; }
	interp=$(readelf -l "$fs$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	mkdir -p "$stage"
	cp -L "$fs$prog" "$stage/$name"
	# A static program (busybox-static) is whole as it is: no .loader
	if [ -z "$interp" ]; then
		readelf -d "$fs$prog" 2>/dev/null | grep -q '(NEEDED)' &&
			{ echo "$prog needs libraries but names no loader" >&2; return 1; }
		return 0
	fi
	loader=$(basename "$interp")
	if [ ! -e "$stage/$loader" ]; then
		src=
		for d in "$fs$(dirname "$interp")" "${libdirs[@]}"; do
			[ -e "$d/$loader" ] && { src=$d/$loader; break; }
		done
		[ -n "$src" ] || { echo "loader $interp not found in the packages" >&2; return 1; }
		cp -L "$src" "$stage/$loader"
	fi
	echo "$loader" >"$stage/.loader"
	queue=("$stage/$name")
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$stage/$lib" ] && continue
			src=
			for d in "${libdirs[@]}"; do
				[ -e "$d/$lib" ] && { src=$d/$lib; break; }
			done
			[ -n "$src" ] || {
				echo "$lib, needed by $(basename "$f"), is in none of the packages" >&2
				return 1
			}
			cp -L "$src" "$stage/$lib"
			queue+=("$stage/$lib")
		done
	done
}
