#!/usr/bin/env bash
# Issue #37, twenty-second session: can the profiled run start while the traced run runs?
# ncu's `--mode launch` starts the program and suspends it at its first CUDA call, and
# `--mode attach` profiles it from there with its own options. Started beside the traced
# run, the profiled run's start (Python importing torch, building the model on the CPU)
# would no longer follow the traced run but overlap it.
# Stage `overlap`: the transformer (samples/apps/torch_transformer.py, 20 steps) plain;
# `import torch` alone; gpulint's default run (--verbose: its profiled-run command); that
# command as is against the same options split into a launch (in the background, waited
# for until it says it waits) and an attach; then the launch started beside a plain run
# (standing in for the traced run) and attached after it, against the plain run and the
# command in sequence. Stage `small`: the same split on LU 1024 (a C++ program whose CUDA
# starts at once), for what the handshake costs.
# Expected before the call: the launch prints that it waits for a profiler (ncu's docs:
# suspended before the first instrumented API call) 2-4 s after its start (torch's import);
# the attach takes the profiling options (--metrics, --kernel-id, -o, --log-file) and
# writes the same report, whose import has the same launches; the ==PROF== lines go to the
# attach's output or log; the overlap saves the 2-4 s of the program's start against the
# sequence; on LU the handshake costs under 0.5 s.
# Call 1 (twenty-second session): the launch printed "Waiting for profiler to attach on
# ports 50123-50123" at once, not at the first CUDA call, and every attach, even 8 s
# later, found "No processes found on 127.0.0.1 (ports 50123-50123)" and exited 1.
# Stage `probe`, for call 2: does the loopback work there; what does the suspended program
# listen on (/proc/net/tcp, ss); does an attach with ncu's own ports (no -p), to 127.0.0.1,
# to localhost, to the host's address, find it. Expected: the program listens only once
# it reaches CUDA, on a port of ncu's range, and one of the attaches finds it.
# Call 2: the loopback works; with ncu's own ports the program listened on 49152 and the
# attach to 127.0.0.1 profiled it (exit 0); with `-p 50123 --max-connections 1` it listened
# on 50123 and no attach found it, to any host.
# Stage `ports`, for call 3: `-p 50123 --max-connections 2`, then `-p 50123` alone, and when
# the program starts to listen (polling /proc/net/tcp from its launch). Stage `beside2`:
# with the first port form that worked, the launch beside a plain run, attached once the
# plain run ends and the program listens, against the plain run and gpulint's profiled
# command in sequence, two rounds. Expected: one of the forms works (the range of one port
# is ncu's bug); the program listens once it reaches CUDA, about 3 s after its launch
# (`import torch` alone took 2.9 s); beside saves about that against the sequence.
# Call 3 (twice; the first forgot to unpack gpulint): `-p 50123 --max-connections 2` works
# (listening 3.2 s after the launch, attach exit 0). Beside a plain run, the attach took
# 11.40 / 9.10 s against 14.39 / 12.19 s for the command as is.
# Stage `gpulint`, for call 4, with gpulint's own overlap (ncu::early, this commit): the
# transformer plain, then gpulint's default run and `--no-overlap`, alternating, three
# rounds, as JSON; once --verbose for its stages; the CNN (torch_cnn.py, 30 steps) plain,
# default and --no-overlap once; LU 1024 default and --no-overlap twice, and with --source
# once each. Expected: the same warnings in both forms everywhere (and LU's lines with
# --source); the transformer's default run 2-3 s under --no-overlap and within twice the
# plain run before it plus 5 s in every round; the CNN some 3 s under; LU the same within
# 0.3 s (its CUDA starts at once: nothing to overlap).
# Call 4: the transformer 18.72 / 21.12 / 21.30 s by default against 22.65 / 25.91 / 28.34
# with --no-overlap (plain 9.78 / 8.94 / 8.90: within twice plain plus 5 s in all three
# rounds, --no-overlap in one), the same warning in all six; LU the same time and
# warnings. But the CNN took 126.83 s against 47.49: after its 16 launches ncu and the
# program did nothing for 86 s until the watch stopped them. Its trace holds a block of a
# torch.compile worker that started CUDA (fixtures/h200-by-time/default_cnn3.trace.csv):
# a child the launch held at its first CUDA call, which nothing ever attached to, while
# the script waited on it. First fix tried: the launch given `--target-processes
# application-only`. Stage `cnn_fix`, for call 5: the CNN at 10 steps, --verbose, at most
# 100 s. Expected: no hang, the program held and attached, its three warnings.
# Call 5 was refused (no device time left). So the fix kept is the one that needs no new
# ncu behaviour: a trace with more than one process that started CUDA stops the held
# program, and ncu runs it again in sequence, as call 4's --no-overlap run did (47.49 s).
# Results: lab/runs/2026-12-04-launch-attach.txt.
#   usage: OUT=DIR lab/scripts/corpus/launch_attach.sh overlap small   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
port=50123
# Polls file $1 until it shows ncu's wait for a profiler (at most $2 s); prints the seconds.
waited_for_attach() {
  local t0; t0=$(now)
  local i=0
  while [ $i -lt $(($2 * 10)) ]; do
    if grep -qi "waiting\|attach" "$1" 2>/dev/null; then break; fi
    sleep 0.1; i=$((i + 1))
  done
  since "$t0"
}
# gpulint's profiled-run command for program "$@" from a verbose default run named $name,
# split into `ncu_bin` and `prof_args` (the options without the program).
profiled_command() {
  local name=$1; shift
  run_gl "$name" --verbose -- "$@"
  logged_ncu_again "$r/$name.txt" "^gpulint: /.*/ncu " "$r/rep" "$r/log_$name.txt"
  echo "${cmd[*]}" >> "$r/commands.txt"
  local n=${#cmd[@]} k=$#
  ncu_bin=${cmd[0]}
  prof_args=("${cmd[@]:1:n-1-k}")
}
# One split run of program "$@", named $name: the launch in the background, the attach
# once it waits; $r/$name.times gets the wait, the attach and the whole.
split_run() {
  local name=$1; shift
  local t0; t0=$(now)
  "$ncu_bin" --mode launch -p "$port" --max-connections 1 "$@" > "$r/${name}_launch.txt" 2>&1 &
  local pid=$!
  local waited; waited=$(waited_for_attach "$r/${name}_launch.txt" 60)
  timed "${name}_attach" "$ncu_bin" --mode attach --hostname 127.0.0.1 -p "$port" \
    --max-connections 1 "${prof_args[@]}"
  timeout 120 tail --pid="$pid" -f /dev/null; kill "$pid" 2>/dev/null
  wait "$pid"; local rc=$?
  echo "$name waited $waited whole $(since "$t0") launch_exit=$rc" | tee -a "$table"
  "$ncu_bin" --import "$r/rep.ncu-rep" --csv --page raw --print-units base \
    > "$r/${name}_import.csv" 2>&1
  echo "$name imported rows $(($(wc -l < "$r/${name}_import.csv") - 2))" | tee -a "$table"
}
# The launch beside program "$@" run plain (the traced run's stand-in), then the attach.
beside_run() {
  local name=$1; shift
  local t0; t0=$(now)
  "$ncu_bin" --mode launch -p "$port" --max-connections 1 "$@" > "$r/${name}_launch.txt" 2>&1 &
  local pid=$!
  timed "${name}_plain" "$@"
  local waited; waited=$(waited_for_attach "$r/${name}_launch.txt" 60)
  timed "${name}_attach" "$ncu_bin" --mode attach --hostname 127.0.0.1 -p "$port" \
    --max-connections 1 "${prof_args[@]}"
  timeout 120 tail --pid="$pid" -f /dev/null; kill "$pid" 2>/dev/null
  wait "$pid"; local rc=$?
  echo "$name waited_after_plain $waited whole $(since "$t0") launch_exit=$rc" | tee -a "$table"
}
overlap() {
  local prog=(python3 samples/apps/torch_transformer.py)
  ncu --help > "$r/help.txt" 2>&1
  timed plain_0 "${prog[@]}"
  timed import_torch python3 -c 'import torch'
  profiled_command default "${prog[@]}"
  for round in 1 2; do
    timed "plain_$round" "${prog[@]}"
    timed "as_is_$round" "${cmd[@]}"
    "$ncu_bin" --import "$r/rep.ncu-rep" --csv --page raw --print-units base \
      > "$r/as_is_import_$round.csv" 2>&1
    echo "as_is_$round imported rows $(($(wc -l < "$r/as_is_import_$round.csv") - 2))" |
      tee -a "$table"
    split_run "split_$round" "${prog[@]}"
    beside_run "beside_$round" "${prog[@]}"
  done
  rm -f "$r"/rep.ncu-rep
}
small() {
  build_sample lud
  local prog=("$build/lud" 1024)
  profiled_command lud_default "${prog[@]}"
  for round in 1 2; do
    timed "lud_as_is_$round" "${cmd[@]}"
    split_run "lud_split_$round" "${prog[@]}"
  done
  rm -f "$r"/rep.ncu-rep
}
# One launch of the transformer with ports $1 (e.g. "-p 50123 --max-connections 1", or
# nothing for ncu's own), then attaches to each host of $2.. until one profiles two launches.
probe_one() {
  local ports=$1; shift
  local prog=(python3 samples/apps/torch_transformer.py 2)
  # shellcheck disable=SC2086  # $ports is words
  ncu --mode launch $ports "${prog[@]}" > "$r/probe_launch.txt" 2>&1 &
  local pid=$!
  sleep 10
  { echo "ports: $ports"; ss -ltnp 2>&1 || cat /proc/net/tcp /proc/net/tcp6; } >> "$r/probe_listen.txt"
  local host
  for host in "$@"; do
    # shellcheck disable=SC2086
    timed "probe_attach_${host}" ncu --mode attach --hostname "$host" $ports --clock-control none \
      --metrics gpu__time_duration.sum --launch-count 2 -f -o "$r/probe" &&
      grep -q "exit=0" <(tail -1 "$table") && break
  done
  timeout 60 tail --pid="$pid" -f /dev/null; kill "$pid" 2>/dev/null; wait "$pid"
  echo "probe launch exit=$? ports=$ports" | tee -a "$table"
  cat "$r/probe_launch.txt" >> "$r/probe_launches.txt"
}
probe() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c=socket.create_connection(s.getsockname(), timeout=2); print("loopback ok")' \
    > "$r/loopback.txt" 2>&1
  { hostname; hostname -I; ip addr 2>&1; } >> "$r/loopback.txt"
  local me; me=$(hostname -I | awk '{print $1}')
  probe_one "" 127.0.0.1 localhost "${me:-127.0.0.1}"
  probe_one "-p 50123 --max-connections 1" 127.0.0.1 localhost "${me:-127.0.0.1}"
  tar czf "$OUT/results.tar.gz" -C "$r" .
}
# Seconds from now until a socket listens on port $1 (hex in /proc/net/tcp), at most 60.
listening_after() {
  local hex; hex=$(printf '%04X' "$1")
  local t0; t0=$(now)
  local i=0
  while [ $i -lt 600 ]; do
    if awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" {f=1} END {exit !f}' /proc/net/tcp; then break; fi
    sleep 0.1; i=$((i + 1))
  done
  since "$t0"
}
good_ports=""
ports() {
  local form
  for form in "-p 50123 --max-connections 2" "-p 50123"; do
    local prog=(python3 samples/apps/torch_transformer.py 2)
    # shellcheck disable=SC2086  # $form is words
    ncu --mode launch $form "${prog[@]}" > "$r/ports_launch.txt" 2>&1 &
    local pid=$!
    echo "listening after $(listening_after 50123) s, ports $form" | tee -a "$table"
    # shellcheck disable=SC2086
    timed "ports_attach" ncu --mode attach --hostname 127.0.0.1 $form --clock-control none \
      --metrics gpu__time_duration.sum --launch-count 2 -f -o "$r/probe"
    cat "$r/ports_attach.txt" >> "$r/ports_attaches.txt"
    timeout 60 tail --pid="$pid" -f /dev/null; kill "$pid" 2>/dev/null; wait "$pid"
    echo "ports launch exit=$? ports=$form" | tee -a "$table"
    if tail -2 "$table" | grep -q "ports_attach.*exit=0"; then good_ports=$form; break; fi
  done
}
beside2() {
  local prog=(python3 samples/apps/torch_transformer.py)
  profiled_command default "${prog[@]}"
  local round
  for round in 1 2; do
    timed "b2_plain_$round" "${prog[@]}"
    timed "b2_as_is_$round" "${cmd[@]}"
    local t0; t0=$(now)
    # shellcheck disable=SC2086  # $good_ports is words
    "$ncu_bin" --mode launch $good_ports "${prog[@]}" > "$r/b2_launch_$round.txt" 2>&1 &
    local pid=$!
    timed "b2_beside_plain_$round" "${prog[@]}"
    local port=49152; [ -z "$good_ports" ] || port=50123
    echo "b2 listening $(listening_after "$port") s after the plain run" |
      tee -a "$table"
    # shellcheck disable=SC2086
    timed "b2_attach_$round" "$ncu_bin" --mode attach --hostname 127.0.0.1 $good_ports \
      "${prof_args[@]}"
    timeout 120 tail --pid="$pid" -f /dev/null; kill "$pid" 2>/dev/null; wait "$pid"
    echo "b2_whole_$round $(since "$t0") launch_exit=$?" | tee -a "$table"
    "$ncu_bin" --import "$r/rep.ncu-rep" --csv --page raw --print-units base \
      > "$r/b2_import_$round.csv" 2>&1
    echo "b2 imported rows $(($(wc -l < "$r/b2_import_$round.csv") - 2))" | tee -a "$table"
  done
  rm -f "$r"/rep.ncu-rep
}
# Warnings (kernel, rule) of each JSON report given, one line each.
warnings() {
  python3 - "$@" <<'PY' | tee -a "$table"
import json, sys
for path in sys.argv[1:]:
    try:
        r = json.load(open(path))
    except Exception as e:
        print(path.split("/")[-1], "unreadable:", e); continue
    w = sorted({(f["kernel"].split("(")[0][:60], f["rule"]) for f in r["findings"]
                if f["severity"] != "info"})
    lines = sorted({f"{f['rule']}@{f['source']['line']}"
                    for f in r["findings"] if f.get("source")})
    print(path.split("/")[-1], len(w), w, "lines:", lines[:8])
PY
}
json_run() { # name, then gpulint run's options, --, the program
  local name=$1; shift
  run_gl "$name" --format json -o "$r/$name.json" "$@"
}
gpulint() {
  local prog=(python3 samples/apps/torch_transformer.py)
  timed t_plain_0 "${prog[@]}"
  run_gl t_verbose --verbose -- "${prog[@]}"
  grep "time:\|held\|attach" "$r/t_verbose.txt" | tee -a "$table"
  local round
  for round in 1 2 3; do
    timed "t_plain_$round" "${prog[@]}"
    json_run "t_default_$round" -- "${prog[@]}"
    json_run "t_sequence_$round" --no-overlap -- "${prog[@]}"
  done
  warnings "$r"/t_default_*.json "$r"/t_sequence_*.json
  build_sample lud
  local lud=("$build/lud" 1024)
  for round in 1 2; do
    json_run "lud_default_$round" -- "${lud[@]}"
    json_run "lud_sequence_$round" --no-overlap -- "${lud[@]}"
  done
  json_run lud_source --source -- "${lud[@]}"
  json_run lud_source_sequence --source --no-overlap -- "${lud[@]}"
  warnings "$r"/lud_*.json
  local cnn=(python3 samples/apps/torch_cnn.py)
  timed cnn_plain "${cnn[@]}"
  json_run cnn_default -- "${cnn[@]}"
  json_run cnn_sequence --no-overlap -- "${cnn[@]}"
  warnings "$r"/cnn_*.json
}
cnn_fix() {
  local cnn=(python3 samples/apps/torch_cnn.py 10)
  timed cnn_fix timeout 100 "$gl" run "${ncu_args[@]}" --exit-zero --verbose --format json \
    -o "$r/cnn_fix.json" -- "${cnn[@]}"
  grep "time:\|held\|attach\|did nothing\|killed\|exited" "$r/cnn_fix.txt" | tee -a "$table"
  warnings "$r"/cnn_fix.json
}
for stage in "$@"; do "$stage"; done
