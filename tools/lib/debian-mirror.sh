# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the scripts that fetch Debian packages through a private apt
# configuration (toolchain sources, guest tools, gen-compare's Debian mode).
# The archive is the one this machine's apt already uses, so a user behind a
# mirror or a caching proxy is served by it; nothing here names a host.

# debian_mirror: print the base URI of the machine's Debian archive, the
# Repo-URI of its first "deb" source of a plain suite (bookworm, trixie,
# sid, stable...: not -security, -updates or -backports).
# $SFRAME_DEBIAN_MIRROR, when set, wins.
debian_mirror() {
	local uri
	if [ -n "${SFRAME_DEBIAN_MIRROR:-}" ]; then
		echo "${SFRAME_DEBIAN_MIRROR%/}"
		return 0
	fi
	# The whole output is read: an early exit would fail apt-get's write.
	uri=$(apt-get indextargets --format '$(TARGET_OF) $(RELEASE) $(REPO_URI)' \
			'Identifier: Packages' 2>/dev/null |
		awk '$1 == "deb" && $2 !~ /-/ && !found { found = $3 }
		     END { if (found) print found }')
	if [ -z "$uri" ]; then
		echo "no Debian archive in this machine's apt sources (apt-get indextargets);" \
			"set SFRAME_DEBIAN_MIRROR to one" >&2
		return 1
	fi
	echo "${uri%/}"
}
