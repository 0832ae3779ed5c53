"""Runs a command and stamps ncu's `==PROF== Profiling` lines with the time each ended:
prints `seconds_since_previous  passes  kernel` a launch, then the total. Issue #37's
launch-cost probe (launch_cost.sh)."""
import os
import re
import subprocess
import sys
import time

proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
start = last = time.time()
buf = b""
rows = []
while True:
    chunk = os.read(proc.stdout.fileno(), 65536)
    if not chunk:
        break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        text = line.decode("utf-8", "replace")
        m = re.match(r'==PROF== Profiling "(.*)".* - (\d+) pass', text)
        if m:
            now = time.time()
            rows.append((now - last, int(m.group(2)), m.group(1)[:90]))
            last = now
            print(f"# {now - start:7.2f} profiled {m.group(1)[:90]}")
        elif text.startswith(("==", "step ")) or "launch_cost" in text:
            print(f"# {time.time() - start:7.2f}", text[:200])
proc.wait()
for dt, passes, name in rows:
    print(f"{dt:8.3f} {passes:3d} {name}")
print(f"# total {time.time() - start:.2f} s, {len(rows)} launches, exit {proc.returncode}")
