# report-where.awk: where a kernel report happened, on one line, from the
# console lines that follow its first line (stdin): the task, the
# workqueue, the RIP lines and the reliable frames of its trace. A failure
# in CI prints only its reason line, so that line must say where. Used in
# the guest (lib.sh dmesg_where) and on the host for a guest that crashed
# or hung (harness/common.sh kernel_report).
{ sub(/^\[ *[0-9.]+\] ?/, ""); sub(/\r$/, "") }
/end trace/ || NR > 120 { exit }
!comm && match($0, /Comm: [^ ]+/) { comm = substr($0, RSTART + 6, RLENGTH - 6) }
!wq && /^Workqueue: / { wq = $2 " " $3 }
/^RIP: [0-9]+:/ && nrip < 2 {
	r = substr($2, 6); sub(/\/0x[0-9a-f]+$/, "", r); rip = rip (nrip++ ? ", " : "") r
}
/^ *[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ && nf < 8 {
	f = $1; sub(/\/0x[0-9a-f]+$/, "", f); tr = tr (nf++ ? " < " : "") f
}
END {
	out = ""
	if (comm) out = "task " comm
	if (wq) out = out (out ? "; " : "") "workqueue " wq
	if (rip) out = out (out ? "; " : "") "RIP " rip
	if (tr) out = out (out ? "; " : "") "trace " tr
	print out
}
