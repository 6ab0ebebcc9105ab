# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the scripts that draw flame graphs (tools/system/profile,
# tools/demo): d3-flame-graph's self-contained template, the one perf's
# `perf script report flamegraph` fills, and headless Chromium to draw a
# filled page offline and say what it drew.  Needs $REPO.

# The version perf's flamegraph.py names
D3FG=4.1.3

# d3fg_template: print the template's path, fetched from the npm registry
# by name and version the first time and cached like the toolchains.
d3fg_template() {
	local dir=${SFRAME_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/sframe-toolchain}/npm/d3-flame-graph-$D3FG
	local tpl=$dir/d3-flamegraph-base.html
	if [ ! -f "$tpl" ]; then
		command -v npm >/dev/null || "$REPO/tools/deps" npm >&2 || return 1
		rm -rf "$dir"
		mkdir -p "$dir"
		(cd "$dir" && npm pack --silent "d3-flame-graph@$D3FG" >/dev/null &&
			tar -xzf "d3-flame-graph-$D3FG.tgz" --strip-components=3 \
				package/dist/templates/d3-flamegraph-base.html) >&2 || return 1
	fi
	echo "$tpl"
}

# d3fg_draw HTML PNG DOM: a screenshot of the page HTML as headless
# Chromium draws it, and its DOM once the page's scripts ran.
d3fg_draw() {
	local chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars
		--virtual-time-budget=10000 "--window-size=1600,1000")
	command -v chromium >/dev/null || "$REPO/tools/deps" chromium >&2 || return 1
	"${chrome[@]}" --screenshot="$2" "file://$1" >/dev/null 2>&1 || true
	"${chrome[@]}" --dump-dom "file://$1" >"$3" 2>/dev/null || true
}

# d3fg_frames DOM: the names of the frames drawn, one a line (the page's
# script draws each frame as an SVG group named after it).
d3fg_frames() {
	grep -o '<g [^>]* name="[^"]*" class="frame"' "$1" 2>/dev/null |
		sed 's/.* name="\([^"]*\)".*/\1/' || true
}
