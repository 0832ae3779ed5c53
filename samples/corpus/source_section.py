"""Issue #37/#39: a SourceCounters section without warp-state sampling, made from ncu's own.
Reads ncu's SourceCounters.section ($1) and writes `GpulintSourceLines.section` to the
folder $2: the same per-line SASS counters and derived columns, with every pcsamp metric,
the Hotspot table that shows them, and the section's set memberships left out.
With --minimal (fifteenth session), only the per-line columns gpulint reads are kept: no
header or body metrics (branch efficiency, cycles: hardware counters, replay passes), no
cache-policy or thread columns; with --sampling too, the pcsamp columns as well.
    usage: python3 source_section.py SOURCECOUNTERS_SECTION OUT_DIR [--minimal [--sampling]]"""
import os
import sys


def blocks(lines):
    """Top-level blocks of a protobuf text file: (first line, its lines)."""
    out, depth, current = [], 0, []
    for line in lines:
        if depth == 0 and not current and not line.strip():
            out.append(("", [line]))
            continue
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            out.append((current[0].strip(), current))
            current = []
    return out


# The source page's columns gpulint reads (src/ingest/source.rs), and those two of them
# are derived from (src/profile/ncu/source_section.rs, DERIVED_FROM).
READ = {"Instructions Executed", "Divergent Branches", "Address Space",
        "L1 Conflicts Shared N-Way", "L2 Theoretical Sectors Global Excessive",
        "L2 Theoretical Sectors Global", "L1 Wavefronts Shared",
        "L2 Theoretical Sectors Global Ideal"}


def keep_entry(child):
    sampled = any("pcsamp" in c for c in child)
    if not minimal:
        return not sampled
    if sampled:
        return sampling
    return any(c.strip() == f'Label: "{label}"' for c in child for label in READ)


def without_sampling(lines):
    """A SourceMetrics block without its child blocks that name a pcsamp metric."""
    kept, child, depth = [lines[0]], [], 0
    for line in lines[1:-1]:
        child.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            if keep_entry(child):
                kept.extend(child)
            child = []
    return kept + [lines[-1]]


src, out_dir = sys.argv[1], sys.argv[2]
minimal, sampling = "--minimal" in sys.argv, "--sampling" in sys.argv
result = []
for head, lines in blocks(open(src).read().split("\n")):
    if head.startswith(("Sets", "Body")):
        continue
    if minimal and head.split("{")[0].strip() in ("Header", "Metrics"):
        continue
    if head.startswith("Identifier"):
        lines = ['Identifier: "GpulintSourceLines"']
    elif head.startswith("DisplayName"):
        lines = ['DisplayName: "gpulint source lines"']
    elif head.startswith("SourceMetrics"):
        lines = without_sampling(lines)
    result.extend(lines)
os.makedirs(out_dir, exist_ok=True)
open(os.path.join(out_dir, "GpulintSourceLines.section"), "w").write("\n".join(result))
