# The port's per-channel debugfs counters, for the scenarios that read them
# (port-datapath, port-srq). Sourced by bash after lib.sh; the scenario
# mounts debugfs (mount_debugfs). One file per channel,
# $DBG/<session>-<channel id>/stats, one "name value" line per counter
# (docs/data-path.md, "Observability and the test knob").
# shellcheck shell=bash

DBG=/sys/kernel/debug/ib_srpt

stat_of() { awk -v k="$2" '$1==k{print $2}' "$1"; } # stat_of FILE NAME
stat_sum() { # stat_sum NAME: over every channel
	local f s=0
	for f in "$DBG"/*/stats; do s=$((s + $(stat_of "$f" "$1"))); done
	echo $s
}
channels() { ls "$DBG"/*/stats 2>/dev/null; } # one stats file per line
nchannels() { channels | wc -l; }
show_stats() { # every channel's counters, also appended to $OUT/stats.txt
	local f
	for f in $(channels); do
		echo "-- $f"
		tr '\n' ' ' <"$f"; echo
	done | tee -a "$OUT/stats.txt"
}
# all_channels STAT VALUE: there is a channel, and every one has STAT VALUE
all_channels() {
	local f
	[ -n "$(channels)" ] || return 1
	for f in $(channels); do [ "$(stat_of "$f" "$1")" = "$2" ] || return 1; done
}
# credits_conserved [ZERO_STAT...]: there is a channel, and every one is
# idle with every credit and every send context back (req_lim == credits,
# nothing in flight, every send context free, the wait list empty) and
# each ZERO_STAT 0.
credits_conserved() {
	local f z
	[ -n "$(channels)" ] || return 1
	for f in $(channels); do
		[ "$(stat_of "$f" req_lim)" = "$(stat_of "$f" credits)" ] || return 1
		[ "$(stat_of "$f" in_flight)" = 0 ] || return 1
		[ "$(stat_of "$f" send_ctx_free)" = "$(stat_of "$f" send_ctx_total)" ] || return 1
		[ "$(stat_of "$f" wait_depth)" = 0 ] || return 1
		for z in "$@"; do [ "$(stat_of "$f" "$z")" = 0 ] || return 1; done
	done
}
