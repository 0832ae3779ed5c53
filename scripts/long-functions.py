#!/usr/bin/env python3
"""Lists functions in src/ longer than a limit (default 80 lines), outside tests.
tests/structure.rs runs it; `static` tables are not functions and are not counted."""
import os
import re
import sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 80
found = []
for root, _, files in os.walk("src"):
    for f in sorted(files):
        if not f.endswith(".rs"):
            continue
        path = os.path.join(root, f)
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines):
            if line.startswith("#[cfg(test)]"):
                break
            m = re.match(r"^(\s*)(pub(\([a-z]+\))? )?fn (\w+)", line)
            if not m:
                continue
            indent = m.group(1)
            for j in range(i + 1, len(lines)):
                if lines[j] == indent + "}":
                    if j - i + 1 > limit:
                        found.append(f"{path}:{i + 1} {m.group(4)} {j - i + 1} lines")
                    break
for f in found:
    print(f)
sys.exit(1 if found else 0)
