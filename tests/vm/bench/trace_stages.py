"""The stages of one SRP command from the bench-trace scenario's kprobe
events (tests/vm/guest/trace-lib.sh, probe_defs): each command's events
are paired, and the time between two events is a stage.

How an event is tied to its command, for either driver:
- recv/recvr: entry and return of srpt_recv_done(cq, wc) on a CPU. The
  receive completion handles the IU in its own call (both drivers submit
  from it), so the target_init_cmd(se_cmd) that runs on the same CPU
  between the two is that IU's command; the command also keeps the CQ.
- subm, bkdn: target_submit(se_cmd), target_complete_cmd(se_cmd): by the
  se_cmd pointer.
- qdin/qsts and their returns: the driver's queue_data_in/queue_status
  (se_cmd); the rxe_post_send on the same CPU between entry and return is
  the command's response (the initiator's own posts, in the same guest,
  happen outside those calls and are left out).
- sndd: srpt_send_done(cq, wc). Send completions of one CQ come in the
  order their sends were posted, and only the response SEND is signalled,
  so the oldest posted response of that CQ is the one completed. Both
  drivers give a channel one CQ for its receives and its sends.
"""
import collections
import re

EVENT_RE = re.compile(r"\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+"
                      r"(?P<ev>[A-Za-z_]\w*):\s+\((?P<loc>[^)]*)\)(?P<args>.*)$")
ARG_RE = re.compile(r"(\w+)=(0x[0-9a-fA-F]+|-?\d+)")

# (key, from event, to event, what the interval holds)
STAGES = [
    ("driver_in", "recv", "init", "receive completion -> target_init_cmd: the driver takes the IU"),
    ("lio_prep", "init", "subm", "target_init_cmd -> target_submit: LIO sets the command up"),
    ("execute", "subm", "bkdn", "target_submit -> target_complete_cmd: LIO executes, the backend completes"),
    ("lio_done", "bkdn", "queue", "target_complete_cmd -> queue_data_in/queue_status: LIO's completion work"),
    ("driver_out", "queue", "post", "queue_data_in/queue_status -> rxe_post_send: the driver builds and posts the response"),
    ("wire", "post", "sndd", "rxe_post_send -> send completion: rxe, the initiator's ACK, the CQ's poll work"),
    ("total", "recv", "sndd", "receive completion -> send completion"),
]


def parse_events(lines):
    """Yields (cpu, ts seconds, event, {arg: int}) for every kprobe event
    line of an ftrace text dump; other lines yield nothing."""
    for line in lines:
        m = EVENT_RE.search(line)
        if not m:
            continue
        args = {k: int(v, 0) for k, v in ARG_RE.findall(m.group("args"))}
        yield int(m.group("cpu")), float(m.group("ts")), m.group("ev"), args


def pair_commands(events):
    """Pairs the events of each command. Returns (records, counts): one
    dict per command whose response send completed, with the timestamps
    recv init subm [bkdn] queue post sndd and kind read|write; counts of
    what could not be tied to a command, by reason."""
    open_recv = {}      # cpu -> the receive completion running there
    open_queue = {}     # cpu -> se_cmd whose queue_* call runs there
    cmds = {}           # se_cmd -> record, from init until its post
    posted = collections.defaultdict(collections.deque)  # cq -> records
    done = []
    counts = collections.Counter()
    for cpu, ts, ev, a in events:
        if ev == "recv":
            open_recv[cpu] = {"recv": ts, "cq": a.get("cq")}
        elif ev == "recvr":
            open_recv.pop(cpu, None)
        elif ev == "init":
            r = open_recv.get(cpu)
            if r is None or r.get("taken"):
                counts["target_init_cmd outside a receive completion"] += 1
                continue
            r["taken"] = True
            if a["cmd"] in cmds:
                counts["se_cmd reused before its response was posted"] += 1
            cmds[a["cmd"]] = {"recv": r["recv"], "cq": r["cq"], "init": ts}
        elif ev in ("subm", "bkdn"):
            rec = cmds.get(a["cmd"])
            before = "init" if ev == "subm" else "subm"
            if rec is None or before not in rec or ev in rec:
                counts[ev + " of an untracked command"] += 1
                continue
            rec[ev] = ts
        elif ev in ("qdin", "qsts"):
            rec = cmds.get(a["cmd"])
            if rec is None or "subm" not in rec or "queue" in rec:
                counts[ev + " of an untracked command"] += 1
                continue
            rec["queue"] = ts
            rec["kind"] = "read" if ev == "qdin" else "write"
            open_queue[cpu] = a["cmd"]
        elif ev in ("qdinr", "qstsr"):
            open_queue.pop(cpu, None)
        elif ev == "post":
            cmd = open_queue.pop(cpu, None)
            if cmd is None:
                continue  # not a response: the initiator's SRP_CMD, an untracked command's
            rec = cmds.pop(cmd, None)
            if rec is None:
                continue
            rec["post"] = ts
            posted[rec["cq"]].append(rec)
        elif ev == "sndd":
            q = posted.get(a.get("cq"))
            if not q:
                counts["send completion without a traced post"] += 1
                continue
            rec = q.popleft()
            rec["sndd"] = ts
            done.append(rec)
    counts["commands without a send completion at the end"] += len(cmds) + sum(len(q) for q in posted.values())
    return done, counts


def percentile(values, p):
    """Linear interpolation between the closest ranks (numpy's default)."""
    v = sorted(values)
    if not v:
        return None
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def stage_stats(records, kind):
    """Per stage: n, median and p90 in microseconds over the records of
    KIND ('read' or 'write'); records of the other kind are counted."""
    mine = [r for r in records if r.get("kind") == kind]
    out = {"commands": len(mine), "other_kind": len(records) - len(mine), "stages": {}}
    for key, a, b, _ in STAGES:
        d = [(r[b] - r[a]) * 1e6 for r in mine if a in r and b in r]
        out["stages"][key] = {"n": len(d), "p50": percentile(d, 50), "p90": percentile(d, 90)}
    return out
