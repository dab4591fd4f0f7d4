"""A flame graph PNG from collapsed stacks (perf_stacks.collapse): one box
per function in its call path, as wide as its share of the samples, the
task at the bottom and the leaf on top; the boxes of a module share a
colour, so that the target's part (ib_srpt, LIO) stands out."""
import hashlib

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

import perf_stacks  # noqa: E402

MODULE_COLOURS = [
    ("ib_srpt", (0.86, 0.24, 0.20), "ib_srpt"),
    ("target_core", (0.96, 0.58, 0.16), "LIO (target_core_*)"),
    ("null_blk", (0.35, 0.72, 0.35), "null_blk"),
    ("ib_srp", (0.60, 0.42, 0.80), "ib_srp (initiator)"),
    ("scsi_transport_srp", (0.60, 0.42, 0.80), None),
    ("rdma_rxe", (0.30, 0.52, 0.88), "rdma_rxe, ib_core, RDMA/CM"),
    ("ib_core", (0.30, 0.52, 0.88), None),
    ("rdma_cm", (0.30, 0.52, 0.88), None),
    ("ib_cm", (0.30, 0.52, 0.88), None),
    ("(user)", (0.40, 0.78, 0.78), "user space"),
]


def colour(label):
    mod = perf_stacks.label_module(label)
    for prefix, rgb, _ in MODULE_COLOURS:
        if mod.startswith(prefix):
            return rgb
    # The kernel's own functions: warm shades, stable per name.
    h = hashlib.md5(label.encode()).digest()[0] / 255.0
    return (0.93, 0.70 + 0.22 * h, 0.30 + 0.15 * h)


def build_tree(stacks):
    """{'name', 'count', 'children': {name: node}} from root-first tuples."""
    root = {"name": "all", "count": 0, "children": {}}
    for stack, n in stacks.items():
        root["count"] += n
        node = root
        for name in stack:
            node = node["children"].setdefault(name, {"name": name, "count": 0, "children": {}})
            node["count"] += n
    return root


def boxes(root, min_frac=0.0005):
    """(x, depth, width, name) in samples, widest children first; boxes
    narrower than MIN_FRAC of all samples (and what is above them) left out."""
    out = []
    total = root["count"] or 1

    def walk(node, x, depth):
        out.append((x, depth, node["count"], node["name"]))
        for child in sorted(node["children"].values(), key=lambda c: -c["count"]):
            if child["count"] / total >= min_frac:
                walk(child, x, depth + 1)
            x += child["count"]
    walk(root, 0, 0)
    return out


def render(stacks, path, title, width_in=18.0):
    root = build_tree(stacks)
    total = root["count"]
    if not total:
        raise ValueError("no samples to draw")
    bs = boxes(root)
    depth = max(b[1] for b in bs) + 1
    row = 0.22  # inches per frame
    fig = plt.figure(figsize=(width_in, max(4.0, depth * row + 1.6)), dpi=100)
    ax = fig.add_axes([0.01, 0.9 / (depth * row + 1.6), 0.98, depth * row / (depth * row + 1.6)])
    ax.set_xlim(0, total)
    ax.set_ylim(0, depth)
    ax.axis("off")
    pts_per_sample = width_in * 0.98 * 72.0 / total
    for x, d, w, name in bs:
        ax.add_patch(Rectangle((x, d), w, 0.95, facecolor=colour(name) if d else (0.8, 0.8, 0.8),
                               edgecolor="white", linewidth=0.3))
        chars = int(w * pts_per_sample / 4.6)  # ~4.6 pt per character at 7 pt
        if chars >= 4:
            text = name if len(name) <= chars else name[:chars - 2] + ".."
            ax.text(x + 2.0 / pts_per_sample, d + 0.45, text, fontsize=7, va="center", ha="left",
                    clip_on=True)
    handles = [Patch(facecolor=rgb, label=lab) for _, rgb, lab in MODULE_COLOURS if lab]
    handles.append(Patch(facecolor=colour("kernel"), label="kernel"))
    fig.legend(handles=handles, loc="upper right", ncol=len(handles), fontsize=7, frameon=False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=9)
    fig.savefig(path)
    plt.close(fig)
    return len(bs)
