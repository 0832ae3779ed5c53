#!/usr/bin/env bash
# One run with counters (#58 step 4, second option), and the cheaper metric list (step 3).
# Written in the twenty-seventh session, which had no device, before any call.
#   probe   range_probe.cpp (CUPTI's range profiler in kernel replay, injected as the launch
#           tracer is, on the first launch of each kernel function; started and stopped
#           around each such launch, and started once with a range pushed around each) on
#           LU 1024, BFS and the transformer (3 steps), each beside its plain run and ncu
#           on the same first launches (--kernel-id :::1, gpulint's metric list);
#           compare_values.py holds the probe's values to ncu's.
#           Expected before the call: the probe's setup succeeds inside the first launch's
#           callback (unknown; if not, stderr names the step that fails), in one range
#           mode at least (which, unknown; both give the same values); it reports 7
#           passes for gpulint's 69 metrics on the H200 (CUPTI's host count,
#           lab/runs/2026-12-05-passes.txt); every launch gets an activity record beside
#           the range profiler (records = launches); a profiled launch costs a few ms to a
#           few tens of ms (7 replays of a short kernel with save and restore, no ncu
#           start and no report), so LU's one run is its plain run plus well under a
#           second, and the transformer's its plain run plus a few seconds; counts
#           (instructions, sectors, requests, bytes) equal ncu's on the same launch, and
#           percentages of peak within 10% (the launch is the same; clocks and neighbours
#           are not). Before the call, range_probe_dry/dry_run.sh ran its control flow
#           against a fake CUPTI here: in each range mode, with or without a driver launch
#           nested in the runtime one, nine launches counted and three rows written.
#   passes  gpulint's default run on LU 1024 and BFS with this build's list, reading
#           profiler__replayer_passes and the seconds a launch.
#           Expected before the call: 8 passes a launch (CUPTI's 7 plus ncu's one), where
#           the fixtures of 2026-12-05 hold 10; a launch's seconds down by about a fifth.
#   cache   (twenty-eighth session, after `probe` ran on an H100: auto ranges worked, 0.10 s a
#           profiled launch, 41 of 43 findings the same as from ncu's values; the probe's
#           DRAM writes were far above ncu's, e.g. 6.7 MB against 256 bytes, which took
#           latency-bound off two PyTorch kernels) LU, BFS and the transformer again under
#           ncu with --cache-control none, and under the probe with PROBE_FLUSH=1 (twice
#           the L2 read through before each profiled launch).
#           Expected before the call: ncu without cache control counts DRAM writes like
#           the probe's (dirty lines of earlier work written back during the launch), so
#           the gap is ncu's flush, not an error of either. If those lines come from
#           before the launch (the program's own writes, the replay's save), the flush
#           brings the probe's DRAM writes to ncu's (within 10%) and the two latency-bound
#           findings back; if they come from CUPTI's restores between passes, it changes
#           little, and the probe's DRAM numbers cannot match ncu's default.
#   tracer  (twenty-eighth session) gpulint's launch tracer with its range profiler part
#           (launch_tracer_counters.inc): counters_layout_check.cpp against this machine's
#           CUPTI headers, then LU, BFS and the transformer (3 steps) plain, traced, and
#           traced with gpulint's metrics (GPULINT_COUNTERS_OUT), each trace and counters
#           file kept; compared offline with call 2's probe and ncu values
#           (counters_as_probe.py, compare_values.py).
#           Expected before the call: the layout check compiles; the counters file has a
#           row for the first launch of each kernel (LU 3, BFS 2, the transformer 37, as
#           the probe profiled) and ends with no "# stopped" line; the trace has every
#           launch (LU 190, BFS 22, the transformer 477), the profiled ones marked 1; the
#           values agree with the probe's (the same profiler on the same launches: counts
#           equal, rates within 10%); the traced run with counters costs its traced run
#           plus about 0.1 s a profiled launch and CUPTI's set-up (under a second).
#   onerun  (twenty-eighth session, after `tracer`) what one run would cost where two runs
#           miss the target: torch_attention.py (3 steps) plain, traced, and traced with
#           gpulint's metrics on the first launch of each kernel (at most 40); the
#           augmented CNN's long loop (--seconds 300) traced with a 20-s window
#           (GPULINT_TRACE_WINDOW_S), with and without the counters. Each trace and
#           counters file kept.
#           Expected before the call: attention's run with counters takes its traced run
#           plus about a second of CUPTI's set-up and 0.13 s for each kernel profiled (40
#           at most: about 15 s, where call 4's default two runs took 25.7 s); the window
#           run its traced run (about 29 s) plus the same (about 35 s, where call 4's took
#           74.6 s, gpulint's own 8 s apart); every launch in the traces, the profiled ones
#           marked, no "# stopped" line.
#   device  (twenty-eighth session, after the tracer's rows gained the device's attributes)
#           LU 1024 traced with counters; the counters file kept.
#           Expected before the call: the header ends with the eleven device__attribute_*
#           columns and each row with the H100's values (CC 9.0, 132 SMs, 64 warps and 32
#           blocks an SM, 65,536 registers a block and an SM, 233,472 bytes of shared
#           memory an SM, 1,024 reserved a block, a 50 MB L2, "NVIDIA H100 80GB HBM3"), as
#           ncu's export of call 3 gives them.
#   gl_onerun (twenty-ninth session, after `gpulint run --one-run` was built: the tracer's
#           counters become the profiled run's export, and the tracer picks a function's
#           launches after its first where their records show a grid 4x larger or smaller,
#           or twice the duration, up to 3 a function; records flushed at a function's
#           first 64 launches) `gpulint run --one-run -v`, timed beside
#           the plain run, on LU 1024, BFS, torch_attention.py 3 and split_structs 1;
#           --one-run alone on the augmented CNN's long loop with --window 20 and on
#           torch_transformer.py 3; last, the default two runs on attention. Each saved run kept
#           (--save-csv); the device's attributes are in LU's export.
#           Expected before the call: every --one-run says it ran once and that ncu did not
#           run (no "runs again"); no hang from the flushes in the launch callbacks.
#           LU: lud_internal profiled 3 times (grids 3969, then about 961 and 225 blocks),
#           lud_perimeter 2-3 times, lud_diagonal once; the warnings of every launch (7, with
#           small-grid and latency-bound on lud_internal), where first launches gave 6.
#           BFS: Kernel and Kernel2 each 2-3 times (the level after the first large one);
#           more of every launch's 5 warnings than first launches' 2, serial-loads among
#           them. split_structs: all 10 kernels once, the 2 warnings of every launch.
#           attention: the two runs' 2 warnings (fp32-gemm-on-cuda-cores,
#           manual-attention). transformer: manual-attention. The window: launch-bound,
#           reported in under 60 s. Times: each one-run within 1.5x its plain run + 5 s
#           (attention about 19 s against the two runs' 25.7 s on an H100).
#   gl_grids (twenty-ninth session, after gl_onerun's call: picks by the records made none,
#           and the tracer now picks a function's later launches by the grid its launch
#           call asks for, 4x more or fewer blocks than every profiled one, up to 3)
#           `gpulint run --one-run -v` on LU 1024 and BFS.
#           Expected before the call: LU's tracer profiles 7 launches: lud_internal at
#           3,969 blocks, then its first grid of at most 992 (961) and of at most 240
#           (225); lud_perimeter at 63, 15 and 3 blocks; lud_diagonal once (one block
#           always). Its report gives every launch's 7 warnings, latency-bound on
#           lud_internal among them, within 1.5x the plain run + 5 s. BFS as in gl_onerun
#           (2 launches: its grids never change).
#   dram1   (thirtieth session, before gl_grids' call) the range profiler's DRAM figures when
#           the DRAM metrics alone are asked, one pass and so no replay: the probe with
#           gpulint's seven DRAM and duration metrics on the first launch of each kernel of
#           the transformer (3 steps), LU 1024 and BFS, without and with PROBE_FLUSH=1, beside
#           ncu on the same launches with the same list; then the transformer's second
#           launches (PROBE_SKIP=1) flushed.
#           Expected before the call: the probe reports 1 pass. If CUPTI saves and restores
#           memory only between passes, one pass has nothing to write back: unflushed, the
#           small kernels' DRAM writes fall to ncu --cache-control none's (call 3: the
#           elementwise kernel 4.6 KB, the dropout kernel 0.8 MB, where 7 passes wrote 6.7
#           and 6.9 MB); flushed, to ncu's default (256 B, 7 KB), and reads match ncu's
#           within 10% where a kernel reads over 1 MB (lud_internal's 4.2 MB, where 7 passes
#           read 256 B). Then the DRAM throughput agrees with ncu's within 5 points of peak on
#           every kernel flushed, and call 2's probe values with these DRAM figures put in
#           give ncu's 28 transformer findings, the two latency-bound ones back. If CUPTI
#           saves memory before a single pass too, reads stay low and writes high, and the
#           DRAM side of one run needs ncu. The second launches, flushed, match the first
#           launches' ncu DRAM throughput within 5 points on kernels whose work repeats.
#   gl_loops (thirtieth session; gl_grids never ran, for want of a machine, and the tracer
#           now also profiles, once no function is new for max(8, 2 x functions) launches,
#           up to two launches of a function at doubling counts) `gpulint run --one-run -v`
#           on LU 1024 and BFS, then each with --all-launches (BFS first, the cheaper).
#           Expected before the call (the picks simulated from the programs' launch order):
#           LU's tracer profiles 13 of its 190 launches: the first of each function, the
#           4th of lud_perimeter and lud_internal, the 8th of all three, lud_diagonal's
#           16th, and by grid lud_internal at 784, 196 blocks and lud_perimeter at 14, 3;
#           its report gives --all-launches' warnings on the same machine, latency-bound
#           on lud_internal among them (this build reads 6 warnings, none latency-bound,
#           from the H200's older all_lud.csv, which has fewer metrics), within 1.5x the
#           plain run + 5 s.
#           BFS's profiles 4: each kernel's 1st and 8th launch, Kernel's 8th its longest
#           (72-80 us); its warnings are --all-launches' (5, serial-loads among them), with
#           no note of longer unprofiled launches.
#   gl_loops2 (thirtieth session, after gl_loops and dram1 ran: BFS's serial-loads comes from
#           its 6th level alone, which doubling counts skip; the tracer now profiles a steady
#           loop's next 4 launches of each function, then doubling counts, 6 in all, and a
#           replayed launch is timed by its counters) `gpulint run --one-run -v` on LU 1024,
#           BFS, split_structs 1 (beside --all-launches) and torch_attention.py 3 (beside its
#           plain run).
#           Expected before the call (picks simulated from the launch order): LU profiles 25
#           launches and gives gl_loops' all_lud warnings (7) within 5.8 s of its own
#           (1.5 x 0.55 + 5; the tracer's build apart); BFS profiles 10 (Kernel's 1st and
#           6th-9th, Kernel2's 1st and 5th-8th) and gives all_bfs's 5 warnings, serial-loads
#           among them, within 5.75 s; split_structs profiles its 10 launches (each once, so
#           no repeat) and, as in gl_onerun, gives fewer warnings than --all-launches (the
#           replay's DRAM figures); attention profiles 39 launches as before (first launches
#           fill three quarters of the cap, so no repeat) within 1.5x its plain run + 5 s.
#   gl_loops3 (thirtieth session, after gl_loops2: LU's one run took 5.90 s besides the
#           tracer's build, its 25 profiled launches about 0.1 s each, at its 1.5 x 0.60 + 5 s
#           target; the repeats now stop once they have cost max(1 s, a quarter of the run))
#           `gpulint run --one-run -v` on LU 1024 twice (the second with the tracer built)
#           and BFS.
#           Expected before the call: LU profiles 15-19 launches (its 3 first and 4 by grid,
#           the repeats cut to the 8-12 that fit a second) and gives all_lud's 7 warnings,
#           within 1.5x its plain run + 5 s on the second run (about 5 s); BFS still
#           profiles 10 (its 8 repeats cost about half a second) and gives all_bfs's 5.
#   dram2   (thirtieth session, after dram1: one pass without replay read the inputs from a
#           warm L2, and a copy through the L2 evicted nothing) dram1's runs with
#           PROBE_FLUSH=2: before each profiled launch a kernel reads twice the L2's size
#           (loads that allocate in the L2), waited for; the transformer's first launches
#           beside ncu on this machine, then its second launches; LU and BFS against
#           dram1's ncu rows (call 1, another H100).
#           Expected before the call: the flush kernel loads and runs (stderr says nothing
#           of it); reads match ncu's within 10% on the kernels that read over 1 MB
#           (cuBLASLt's split-K reduction and a GEMM 16.8 MB, a reduction 8.5 MB,
#           lud_internal 4.2 MB), writes fall to ncu's order (an output that fits the L2
#           stays in it: kilobytes, not dram1's 7.9 MB); DRAM throughput within 5 points on
#           at least 15 of the transformer's 18 kernels and on the same side of 40% on all;
#           put into call 2's rows of lab/runs/2026-12-05-range-profiler.txt, ncu's 20
#           transformer findings. The second launches agree about as well where a kernel's
#           work repeats. If reads stay low, the L2 keeps lines a flush kernel cannot
#           evict, and one run's DRAM side needs ncu.
#   tf_three (thirtieth session, after dram2: a flush kernel gives one pass ncu's DRAM
#           figures, but the 7-pass replay's SM-side percentages come from a warm L2 and move
#           near-bar verdicts) torch_transformer.py 3 under `gpulint run` three ways, each
#           saved: --one-run, the default (two runs, a sample by time), --all-launches.
#           Expected before the call: --all-launches profiles all 477 launches (about three
#           minutes); the default's warnings are a subset of its warnings on the kernels it
#           sampled; the one run's differ from --all-launches' only in near-bar verdicts
#           (latency-bound or issue-bound on short elementwise kernels, within a few points
#           of 40%), and where a kernel's later launches differ from its first.
#   defaults (thirtieth session, after tf_three) the default two runs of `gpulint run` on LU
#           1024, BFS and split_structs 1, each saved, beside the one runs and --all-launches
#           of calls 1-3 (another H100 of the same kind).
#           Expected before the call: LU gives --all-launches' 7 warnings (its sample by time
#           covers the grid classes); BFS 4 or 5 (serial-loads only where the sample takes
#           the 6th level, none of three in 2026-12-05-range-profiler.txt's call 3);
#           split_structs none, as --all-launches on the H100.
#   window  (thirty-first session: --window now runs the program once, the tracer profiling
#           up to 100 launches and the window not paying for them; load requests come from
#           the L1's counter again) `gpulint run -v --window 20` on the augmented CNN's
#           5-minute loop; its short run (2 steps) by default, on the same machine, for the
#           warnings the window is to give; then torch_attention.py at 1 step plain, by
#           default and with --all-launches (3 steps did not finish in 300 s).
#           Expected before the call: the window reports in under 60 s (the script's start
#           about 4 s, the window 20 s, 70-90 profiled launches at 0.13-0.22 s, gpulint's own
#           reading of 50,000-300,000 launches 5-8 s); it says it ran once and profiled the
#           backward's kernels (cuDNN's wgrad_alg0_engine and bn_bw among them), leaving
#           under 10% of the GPU time unprofiled (49.1% before); its warnings include the
#           short run's four: launch-bound, fp32-gemm-on-cuda-cores on cuBLAS's GEMM,
#           uncoalesced-load on wgrad_alg0_engine, misaligned-access on cuDNN's fprop
#           (sm80_xmma_fprop_implicit_gemm_f32f32...nchwkcrs, 4.9 sectors a load request,
#           which the L1's requests give back), and may add misaligned-access on the two
#           elementwise kernels one run warned of before. The short run gives those four.
#           Attention at 1 step: --all-launches profiles every launch (about 420, some
#           150 s); the default's warnings are fp32-gemm-on-cuda-cores and manual-attention,
#           and equal --all-launches' unless every launch adds one on a kernel the sample
#           left out (uncoalesced-load on an elementwise kernel, which a 12-launch sample
#           gave at 3 steps).
#   window2 (thirty-first session, after `window`: the window reported in 52.6 s with 100
#           launches profiled, but 42 of them were repeats of the augmentation loop's kernels,
#           steady long before the model's first launch, and the backward's first launches
#           (cuDNN's bn_bw, wgrad_alg0_engine) came after the cap: no uncoalesced-load. Under a
#           window, repeats now wait for its second half) `gpulint run -v --window 20` on the
#           augmented CNN's 5-minute loop; then its 2 steps plain and by default, the
#           torch.compile cache warm.
#           Expected before the call: the window's run profiles about 75-80 launches (each of
#           the step's 69 functions once, a few grid picks, no repeat: three quarters of the
#           cap are used by then), wgrad_alg0_engine and bn_bw among them, leaving under 10%
#           of the GPU time unprofiled; its warnings include the short run's five of `window`
#           (launch-bound, fp32-gemm-on-cuda-cores, uncoalesced-load on wgrad_alg0_engine,
#           misaligned-access on cuDNN's fprop and on cuBLAS's GEMM's stores), with
#           misaligned-access on the two elementwise kernels as before; it reports in under
#           60 s (the tracer already built: about 47 s). The 2 steps: plain about 15-19 s, the
#           default within twice that plus 5 s.
#   window3 (thirty-first session, after window2: its window held 4,181 launches, the first
#           step alone, where window's held 57,701; its clock ran from CUDA's first call, and
#           36 repeats still came before the model's first launch. The window now counts from
#           the first kernel launch and repeats nothing) `gpulint run -v --window 20` on the
#           augmented CNN's 5-minute loop twice (a fresh machine, then with the tracer built
#           and the torch.compile cache warm), each trace summarised by trace_timeline.py.
#           Expected before the call: each window holds tens of thousands of launches, many
#           steps; the tracer profiles 75-80 launches (each of the step's 69 functions once,
#           grid picks while three quarters of the cap are left), none of them a repeat,
#           cuDNN's wgrad_alg0_engine and bn_bw among them, leaving under 10% of the GPU time
#           unprofiled; the warnings are the short run's on this machine (window2's
#           short_warm): launch-bound, fp32-gemm-on-cuda-cores on cuBLAS's GEMM,
#           uncoalesced-load on wgrad_alg0_engine, misaligned-access on cuDNN's fprop, on the
#           GEMM's stores and on the two elementwise kernels; each run reports in under 60 s
#           (the script's start and imports now outside the window: about 10 s more than
#           window2's 53.7 s on a fresh machine, so the first may pass 60 s; the second,
#           the tracer built and the caches warm, about 50 s).
#   window4 (thirty-first session, after window3 on an H200: 76 and 68 launches profiled,
#           the short run's warnings, but 78.4 s and 66.9 s, the window holding 385,019 and
#           579,508 launches; its time now includes the profiling again, counted from the
#           first launch) window3's two runs again.
#           Expected before the call: each window holds 100,000-200,000 launches (about 6 s
#           of steps after the first step's compile and 14 s of profiling); the same
#           launches profiled as in window3 (68-76, wgrad_alg0_engine among them) and the
#           same five warnings, if the first step ends inside the window (window3's fresh
#           run reached its steps 18 s after its first launch); the fresh run in about 55 s
#           (its tracer built, 6.4 s), the warm one in about 48 s.
#   onedefault (thirty-second session: one run is the default, a warning near its bar
#           on a warm cache's side is info, a sampled launch's counters speak only for
#           launches within 2x of its duration) each program plain and by default, on one
#           machine: LU 1024, BFS 1048576 8, split_structs 1, torch_attention.py 1,
#           torch_transformer.py 3, torch_cnn_augment.py 2; the CNN also with --window 600
#           (one run with the window's cap of 100, the program ending before the window).
#           Expected before the call: every default runs the program once ("ran once"),
#           within 1.5x its plain run + 5 s; LU 7 warnings, BFS 5, split_structs 0,
#           attention 2 (fp32-gemm-on-cuda-cores, manual-attention), the transformer 1
#           (fp32-gemm-on-cuda-cores): --all-launches' on the H100 (calls of
#           lab/runs/2026-12-05-one-run-loops.txt and -window-one-run.txt); the CNN's
#           default may miss the backward's kernels under the cap of 40 (uncoalesced-load
#           on cuDNN's wgrad), which --window 600's cap of 100 profiles: 7 warnings there,
#           the two-run default's of window-one-run.txt.
#   onedefault2 (after onedefault on an H200: every default ran once within 1.5x + 5 s;
#           LU 7, BFS 5, split_structs 0, attention 2 warnings as expected; the
#           transformer 2, serial-loads on reduce_kernel<...01ed> at 1.46 loads in flight
#           against a bar of 1.5; the CNN 3 under the cap of 40, 5 under --window 600's
#           100; the one run's cap is now 100 everywhere) on the same machine: LU again
#           (its tracer built), the CNN, attention and the transformer by default, attention
#           with --two-runs, and --all-launches on the transformer and split_structs.
#           Expected before the call: LU in about 3 s; the CNN's 5 warnings of --window 600
#           in about 35 s (plain 27.3 s); attention's 2 within 27 s, its two runs about 40 s;
#           the transformer's default as in onedefault; --all-launches on the transformer
#           gives fp32-gemm-on-cuda-cores as on the H100, and serial-loads on the reduce
#           kernel or not (unknown: 1.46 is 3% from the bar); split_structs none.
#   onedefault3 (after onedefault2 on an H100: the CNN's 7 warnings, the two-run
#           default's, in 28.4 s against 23.0 s plain; attention's 2 but in 23.6 s against
#           8.2 s plain, 75 launches profiled at about 0.2 s each; the transformer's 1 =
#           --all-launches' 1; split_structs' 0 = 0; the tracer now profiles within 3 s plus
#           half the run so far) every program plain and by default on one machine:
#           LU 1024, BFS, split_structs 1, attention 1 step, the transformer 3 steps, the
#           CNN 2 steps.
#           Expected before the call: each default within 1.5x its plain run + 5 s (the
#           tracer's build aside, on a fresh machine LU's first run); attention profiles
#           about 30-40 launches and keeps its 2 warnings; the CNN about 80 (its launches
#           cost about 0.06 s) and its 7 warnings; the transformer its 1, LU 7, BFS 5,
#           split_structs 0.
#   onedefault4 (after onedefault3 on an H100: all six within 1.5x + 5 s, LU 7, BFS 5,
#           split_structs 0, attention 2 (29 launches), the transformer 1 (36); the CNN 6,
#           its profiling stopped at launch 400 of 863 and never reached the backward:
#           wgrad's uncoalesced loads lost; the budget is now 5 s plus half the run, and the
#           stage line says the ranges' seconds) attention, the transformer and the CNN,
#           each plain then by default, on one machine.
#           Expected before the call: attention and the transformer within 1.5x + 5 s
#           with their 2 and 1 warnings; the CNN reaches more of the backward, and keeps its
#           7 warnings if it reaches wgrad (unknown); the ranges' seconds at or above the
#           run's excess over the plain run (a range waits for the queued work).
#   repeatshare (after onedefault4 on an H100 and, offline, a replay of the CNN's
#           launches through the tracer, lab/runs/2026-12-05-repeat-share.txt: repeats now
#           cost at most what the first launches have) the CNN, attention and the
#           transformer, each plain then by default, and --window 20 on the CNN's 5-minute
#           loop, on one machine after a warm-up run (the tracer's build, the chip query,
#           Python's first start).
#           Expected before the call: the CNN reaches its backward, about 76 launches
#           profiled in about as many ranges' seconds as onedefault4's 11.4 s or fewer, its
#           7 warnings (uncoalesced-load on wgrad_alg0_engine among them, as the two runs
#           give), within 1.5x its plain run + 5 s, the stage line naming no kernel the
#           budget left (a count it gives from this build on); attention as in onedefault4 (41
#           launches, about 8.8 s of ranges, 2 warnings: fp32-gemm-on-cuda-cores and
#           manual-attention) within its bar; the window within 60 s with the CNN's
#           short-run warnings (--window keeps no repeats, so this change does not touch it);
#           the transformer (3 steps) by default, its export kept: fp32-gemm-on-cuda-cores
#           its one warning, and serial-loads, if the reduction's 1.46 comes again, info
#           with its near-limit note (lab/runs/2026-12-05-serial-loads-replay.txt).
#           Run on the build with the budget's reserve (lab/runs/2026-12-05-reserve.txt),
#           whose replays say, from the same inputs: the CNN 74 ranges in about 10.4 s, all
#           53 kernels; attention 41 ranges as before but 38 kernels' first launches (33
#           before); the transformer 50 ranges in about 8.2 s (54 in 8.8 s before), its 37
#           kernels all profiled.
#   reservecnn  repeatshare's first half, for a call with little device time left (274 s
#           on 2026-12-06, after failed starts): the warm-up, then the CNN plain and by
#           default, then attention plain and by default. Expected as in repeatshare: the
#           CNN's 7 warnings (wgrad's uncoalesced-load among them) within 1.5x its plain
#           run + 5 s, no kernel left by the budget; attention's 2 warnings within its bar.
#   allcnn  the CNN at 2 steps with --all-launches (every launch under ncu, about 260 s on
#           the H200 in lab/runs/2026-12-05-augment.txt, call 2): the reference the
#           default's warnings are held to. Expected: the model's warnings of the default
#           (fp32-gemm-on-cuda-cores, uncoalesced-load on wgrad, misaligned-access on
#           cuDNN's fprop and the GEMM) and no launch-bound (--all-launches runs no trace).
#   unlikewaits (2026-12-06, after repeatshare ran on an H100: the CNN's one run profiled 68
#           launches, 7 of them unlike grids in its forward, and its budget was spent
#           before the backward's bn_bw (16.8% of the GPU time), wgrad, multi_tensor_apply
#           and a cutlass kernel; 6 of --all-launches' 7 warnings, wgrad's uncoalesced-load
#           lost) the build where a kernel's unlike grids wait until the program is steady:
#           LU, BFS and split_structs, then the CNN, attention and the transformer, each
#           plain then by default, and --window 20 on the CNN's 5-minute loop.
#           Expected before the call (replays with the H100's fit, first launch 4.8 s
#           after CUDA's start, 126 ms a range; lab/runs/2026-12-06-unlike-waits.txt): the
#           CNN about 62 ranges in about 7.7 s, all 53 kernels, its 7 warnings (wgrad's
#           uncoalesced-load among them) within 1.5x its plain run + 5 s, no kernel left
#           by the budget; attention 40 ranges, all 39 kernels, its 2 warnings; the
#           transformer 46 ranges, all 37 kernels, fp32-gemm-on-cuda-cores its one
#           warning; LU (17 launches, 7 warnings), BFS (10, 5 warnings and at most a
#           near-bar info more) and split_structs (none) as before, their picks the same in
#           the replays; the window within 60 s with the CNN's 7 warnings.
#   windowinfo (2026-12-06, after unlikewaits) the build where serial-loads beside others'
#           DRAM write-backs (a tenth of the launch's DRAM traffic or more) is unsettled in
#           one run: --window 20 on the CNN's 5-minute loop, then the CNN's default once.
#           Expected before the call: the window within 60 s with the 2-step run's 7
#           warnings, serial-loads on reduce_kernel's 544-block configuration info with the
#           write-back note (if that configuration is profiled again: it was in calls 1 and
#           3); the CNN's default as in unlikewaits (7 warnings within its bar).
# usage: OUT=DIR lab/scripts/corpus/range_probe.sh STAGE...   (from the repository root;
# gpulint at $GL, default .device-carry/gpulint)
set -u
source "$(dirname "$0")/common.sh" "$OUT" "${GL:-.device-carry/gpulint}"
source "$(dirname "$0")/staged.sh"
# A run's warnings (rule and kernel) and how the program ran, from its report: the
# onedefault stages' line per run.
summary() {
  local f="$r/$1.txt"
  echo "$1: $(grep -c '^warning\[' "$f") warnings: $(grep -A1 '^warning\[' "$f" | grep -o '^warning\[[A-Z0-9]*\] [a-z-]*\|  --> [^ ]*  [^ ]*' | sed 's/.*  //' | tr '\n' ' ')" | tee -a "$table"
  grep -o 'ran once: .*\|runs again, under ncu.*\|runs twice.*' "$f" | head -2 | sed "s/^/$1: /" | tee -a "$table"
}
# A program plain, then under gpulint by default with its export kept, and its summary:
# name, then the program.
plain_then_one() {
  local name=$1; shift
  timed "plain_$name" "$@"
  run_gl "one_$name" -v --save-csv "$r/one_$name.csv" -- "$@"
  summary "one_$name"
}
# The augmented CNN's 5-minute loop under --window 20, its export and sidecar kept (the
# trace, hundreds of MB, left out of the results), and its summary.
window_loop() {
  mkdir -p /tmp/window
  run_gl window_cnn -v --window 20 --save-csv /tmp/window/window_cnn.csv -- \
    python3 samples/apps/torch_cnn_augment.py --seconds 300
  cp /tmp/window/window_cnn.csv /tmp/window/window_cnn.gpulint.json "$r"/
  summary window_cnn
}
# The tracer's build, the chip query and Python's first start, once a machine, before the
# timed runs.
torch_warmup() {
  run_gl warmup -- python3 -c 'import torch; torch.ones(1, device="cuda").sum().item()'
}
# CUPTI's headers and library: extras/CUPTI in older toolkits, the toolkit's own include and
# lib in CUDA 13 (the H100 of 2026-12-05 had only those).
cupti=${CUPTI:-/usr/local/cuda/extras/CUPTI}
if [ ! -d "$cupti/include" ]; then
  cupti=/tmp/cupti
  mkdir -p "$cupti"
  ln -sfn /usr/local/cuda/targets/x86_64-linux/include "$cupti/include"
  ln -sfn /usr/local/cuda/targets/x86_64-linux/lib "$cupti/lib64"
fi
export LIBRARY_PATH="$cupti/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}"
probe="$r/range_probe.so"
# The program once under the probe in each range mode (values to $r/NAME.MODE.csv) and
# once under ncu on the same first launches (raw page to $r/NAME.ncu.csv), each probe run
# compared with ncu's.
probe_and_ncu() {
  local name=$1; shift
  local metrics mode; metrics=$("$gl" metrics)
  timed "ncu_$name" ncu --clock-control none --kernel-id :::1 --print-kernel-base mangled \
    --csv --page raw --print-units base --metrics "$metrics" --log-file "$r/$name.ncu.csv" "$@"
  for mode in auto user; do
    timed "probe_${mode}_$name" env CUDA_INJECTION64_PATH="$probe" \
      LD_LIBRARY_PATH="$cupti/lib64" PROBE_METRICS="$metrics" PROBE_RANGE=$mode \
      PROBE_OUT="$r/$name.$mode.csv" "$@"
    python3 lab/scripts/corpus/compare_values.py "$r/$name.$mode.csv" "$r/$name.ncu.csv" \
      > "$r/compare_${mode}_$name.txt" 2>&1
    echo "$name, $mode ranges:" | tee -a "$table"
    head -1 "$r/$name.$mode.csv" | tee -a "$table"
    tail -4 "$r/compare_${mode}_$name.txt" | tee -a "$table"
  done
}
# The probe, and the two C++ samples its stages run.
build_probe_and_samples() {
  g++ -shared -fPIC -O2 -std=c++17 lab/scripts/corpus/range_probe.cpp -I"$cupti/include" \
    -I/usr/local/cuda/include -L"$cupti/lib64" -lcupti -lcuda -o "$probe" \
    > "$r/build.txt" 2>&1 || { cat "$r/build.txt"; exit 1; }
  build_sample lud
  build_sample bfs
}
for stage in "$@"; do
  case $stage in
    probe)
      build_probe_and_samples
      timed plain_lud "$build/lud" 1024
      probe_and_ncu lud "$build/lud" 1024
      timed plain_bfs "$build/bfs" 1048576 8
      probe_and_ncu bfs "$build/bfs" 1048576 8
      timed plain_tf python3 samples/apps/torch_transformer.py 3
      probe_and_ncu tf python3 samples/apps/torch_transformer.py 3
      ;;
    cache)
      build_probe_and_samples
      metrics=$("$gl" metrics)
      for program in "lud $build/lud 1024" "bfs $build/bfs 1048576 8" \
        "tf python3 samples/apps/torch_transformer.py 3"; do
        set -- $program
        name=$1; shift
        timed "ncu_none_$name" ncu --clock-control none --cache-control none --kernel-id :::1 \
          --print-kernel-base mangled --csv --page raw --print-units base --metrics "$metrics" \
          --log-file "$r/$name.ncu_none.csv" "$@"
        timed "probe_flush_$name" env CUDA_INJECTION64_PATH="$probe" \
          LD_LIBRARY_PATH="$cupti/lib64" PROBE_METRICS="$metrics" PROBE_FLUSH=1 \
          PROBE_OUT="$r/$name.flush.csv" "$@"
      done
      ;;
    tracer)
      g++ -std=c++17 -fsyntax-only -I"$cupti/include" -I/usr/local/cuda/include \
        samples/corpus/counters_layout_check.cpp > "$r/layout_check.txt" 2>&1
      echo "layout check exit=$?" | tee -a "$table"
      g++ -shared -fPIC -O2 -std=c++17 -pthread src/profile/ncu/tracer/launch_tracer.cpp \
        -ldl -o "$r/tracer.so" > "$r/tracer_build.txt" 2>&1 || { cat "$r/tracer_build.txt"; exit 1; }
      build_sample lud
      build_sample bfs
      metrics=$("$gl" metrics)
      libcupti=$(ls "$cupti"/lib64/libcupti.so.* | head -1)
      for program in "lud $build/lud 1024" "bfs $build/bfs 1048576 8" \
        "tf python3 samples/apps/torch_transformer.py 3"; do
        set -- $program
        name=$1; shift
        timed "plain_$name" "$@"
        timed "traced_$name" env CUDA_INJECTION64_PATH="$r/tracer.so" GPULINT_CUPTI="$libcupti" \
          GPULINT_TRACE_OUT="$r/$name.trace_only.csv" "$@"
        timed "counted_$name" env CUDA_INJECTION64_PATH="$r/tracer.so" GPULINT_CUPTI="$libcupti" \
          GPULINT_TRACE_OUT="$r/$name.trace.csv" GPULINT_COUNTERS_OUT="$r/$name.counters.csv" \
          GPULINT_COUNTER_METRICS="$metrics" "$@"
        echo "$name: $(grep -c '^[0-9]' "$r/$name.counters.csv") rows; $(grep '^#' "$r/$name.counters.csv" | tr '\n' ' ')" | tee -a "$table"
        echo "$name trace: $(grep -c '^[0-9]' "$r/$name.trace.csv") launches, $(grep -c ',1$' "$r/$name.trace.csv") marked" | tee -a "$table"
      done
      ;;
    device)
      g++ -shared -fPIC -O2 -std=c++17 -pthread src/profile/ncu/tracer/launch_tracer.cpp \
        -ldl -o "$r/tracer.so" > "$r/tracer_build.txt" 2>&1 || { cat "$r/tracer_build.txt"; exit 1; }
      build_sample lud
      libcupti=$(ls "$cupti"/lib64/libcupti.so.* | head -1)
      timed counted_lud env CUDA_INJECTION64_PATH="$r/tracer.so" GPULINT_CUPTI="$libcupti" \
        GPULINT_TRACE_OUT="$r/lud.trace.csv" GPULINT_COUNTERS_OUT="$r/lud.counters.csv" \
        GPULINT_COUNTER_METRICS="$("$gl" metrics)" "$build/lud" 1024
      head -2 "$r/lud.counters.csv" | tr ',' '\n' | grep -A1 -n device__attribute | tail -24
      tail -1 "$r/lud.counters.csv" | tr ',' '\n' | tail -11 | tr '\n' ' ' | tee -a "$table"
      ;;
    onerun)
      g++ -shared -fPIC -O2 -std=c++17 -pthread src/profile/ncu/tracer/launch_tracer.cpp \
        -ldl -o "$r/tracer.so" > "$r/tracer_build.txt" 2>&1 || { cat "$r/tracer_build.txt"; exit 1; }
      metrics=$("$gl" metrics)
      libcupti=$(ls "$cupti"/lib64/libcupti.so.* | head -1)
      traced=(env CUDA_INJECTION64_PATH="$r/tracer.so" GPULINT_CUPTI="$libcupti")
      counted=("${traced[@]}" GPULINT_COUNTER_METRICS="$metrics")
      timed plain_attention python3 samples/apps/torch_attention.py 3
      timed traced_attention "${traced[@]}" GPULINT_TRACE_OUT="$r/attention.trace_only.csv" \
        python3 samples/apps/torch_attention.py 3
      timed counted_attention "${counted[@]}" GPULINT_TRACE_OUT="$r/attention.trace.csv" \
        GPULINT_COUNTERS_OUT="$r/attention.counters.csv" python3 samples/apps/torch_attention.py 3
      timed window_traced "${traced[@]}" GPULINT_TRACE_WINDOW_S=20 \
        GPULINT_TRACE_OUT="$r/window.trace_only.csv" python3 samples/apps/torch_cnn_augment.py --seconds 300
      timed window_counted "${counted[@]}" GPULINT_TRACE_WINDOW_S=20 \
        GPULINT_TRACE_OUT="$r/window.trace.csv" GPULINT_COUNTERS_OUT="$r/window.counters.csv" \
        python3 samples/apps/torch_cnn_augment.py --seconds 300
      for name in attention window; do
        echo "$name: $(grep -c '^[0-9]' "$r/$name.counters.csv") rows; $(grep '^#' "$r/$name.counters.csv" | tr '\n' ' ')" | tee -a "$table"
        echo "$name trace: $(grep -c '^[0-9]' "$r/$name.trace.csv") launches, $(grep -c ',1$' "$r/$name.trace.csv") marked; without counters $(grep -c '^[0-9]' "$r/$name.trace_only.csv")" | tee -a "$table"
      done
      # The window's traces (hundreds of MB) would keep the results from coming back; the
      # profiled launches' rows are kept.
      grep ',1$' "$r/window.trace.csv" > "$r/window.trace_marked.csv"
      rm -f "$r"/window.trace.csv "$r"/window.trace_only.csv
      ;;
    gl_onerun)
      build_sample lud
      build_sample bfs
      export TIMED_LIMIT=120
      # Most telling first: a call may end before the rest for want of device time.
      for program in "lud $build/lud 1024" "bfs $build/bfs 1048576 8" \
        "attention python3 samples/apps/torch_attention.py 3"; do
        set -- $program
        name=$1; shift
        timed "plain_$name" "$@"
        run_gl "one_$name" --one-run -v --save-csv "$r/one_$name.csv" -- "$@"
      done
      # The window's trace (hundreds of MB) is kept out of the results.
      mkdir -p /tmp/window
      run_gl one_window --one-run -v --window 20 --save-csv /tmp/window/one_window.csv -- \
        python3 samples/apps/torch_cnn_augment.py --seconds 300
      cp /tmp/window/one_window.csv /tmp/window/one_window.gpulint.json "$r"/
      build_sample split_structs
      timed plain_structs "$build/split_structs" 1
      run_gl one_structs --one-run -v --save-csv "$r/one_structs.csv" -- "$build/split_structs" 1
      run_gl one_tf --one-run -v --save-csv "$r/one_tf.csv" -- \
        python3 samples/apps/torch_transformer.py 3
      run_gl two_attention --save-csv "$r/two_attention.csv" -- \
        python3 samples/apps/torch_attention.py 3
      for f in "$r"/one_*.txt "$r"/two_*.txt; do
        echo "$(basename "$f" .txt): $(grep -c 'warning\[' "$f") warning lines; $(grep -m1 -o 'ran once[^;]*;[^)]*' "$f")" | tee -a "$table"
      done
      tar czf "$OUT/results.tar.gz" -C "$r" .
      ;;
    dram1)
      build_probe_and_samples
      dram=dram__bytes.sum.peak_sustained,dram__bytes_read.sum,dram__bytes_write.sum
      dram+=,dram__cycles_active.avg.pct_of_peak_sustained_elapsed,dram__cycles_elapsed.avg.per_second
      dram+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
      probed=(env CUDA_INJECTION64_PATH="$probe" LD_LIBRARY_PATH="$cupti/lib64" PROBE_METRICS="$dram")
      for program in "tf python3 samples/apps/torch_transformer.py 3" "lud $build/lud 1024" \
        "bfs $build/bfs 1048576 8"; do
        set -- $program
        name=$1; shift
        timed "ncu_dram_$name" ncu --clock-control none --kernel-id :::1 --print-kernel-base mangled \
          --csv --page raw --print-units base --metrics "$dram" --log-file "$r/$name.ncu_dram.csv" "$@"
        for flush in 0 1; do
          timed "dram${flush}_$name" "${probed[@]}" PROBE_FLUSH=$flush PROBE_OUT="$r/$name.dram$flush.csv" "$@"
          python3 lab/scripts/corpus/compare_values.py "$r/$name.dram$flush.csv" "$r/$name.ncu_dram.csv" \
            > "$r/compare_dram${flush}_$name.txt" 2>&1
          echo "$name, flush $flush: $(head -1 "$r/$name.dram$flush.csv"); $(tail -1 "$r/compare_dram${flush}_$name.txt")" |
            tee -a "$table"
        done
      done
      timed dram_skip_tf "${probed[@]}" PROBE_FLUSH=1 PROBE_SKIP=1 PROBE_OUT="$r/tf.dram_skip.csv" \
        python3 samples/apps/torch_transformer.py 3
      ;;
    defaults)
      build_sample lud
      build_sample bfs
      build_sample split_structs
      run_gl default_lud -v --save-csv "$r/default_lud.csv" -- "$build/lud" 1024
      run_gl default_bfs -v --save-csv "$r/default_bfs.csv" -- "$build/bfs" 1048576 8
      run_gl default_structs -v --save-csv "$r/default_structs.csv" -- "$build/split_structs" 1
      ;;
    tf_three)
      export TIMED_LIMIT=300
      run_gl three_one --one-run -v --save-csv "$r/three_one.csv" -- python3 samples/apps/torch_transformer.py 3
      run_gl three_default -v --save-csv "$r/three_default.csv" -- python3 samples/apps/torch_transformer.py 3
      run_gl three_all -v --all-launches --save-csv "$r/three_all.csv" -- python3 samples/apps/torch_transformer.py 3
      ;;
    dram2)
      build_probe_and_samples
      dram=dram__bytes.sum.peak_sustained,dram__bytes_read.sum,dram__bytes_write.sum
      dram+=,dram__cycles_active.avg.pct_of_peak_sustained_elapsed,dram__cycles_elapsed.avg.per_second
      dram+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
      probed=(env CUDA_INJECTION64_PATH="$probe" LD_LIBRARY_PATH="$cupti/lib64" PROBE_METRICS="$dram" PROBE_FLUSH=2)
      timed ncu_dram_tf ncu --clock-control none --kernel-id :::1 --print-kernel-base mangled \
        --csv --page raw --print-units base --metrics "$dram" --log-file "$r/tf.ncu_dram.csv" \
        python3 samples/apps/torch_transformer.py 3
      timed dram2_tf "${probed[@]}" PROBE_OUT="$r/tf.dram2.csv" python3 samples/apps/torch_transformer.py 3
      timed dram2_skip_tf "${probed[@]}" PROBE_SKIP=1 PROBE_OUT="$r/tf.dram2_skip.csv" \
        python3 samples/apps/torch_transformer.py 3
      timed dram2_lud "${probed[@]}" PROBE_OUT="$r/lud.dram2.csv" "$build/lud" 1024
      timed dram2_bfs "${probed[@]}" PROBE_OUT="$r/bfs.dram2.csv" "$build/bfs" 1048576 8
      ;;
    gl_loops3)
      build_sample lud
      build_sample bfs
      timed plain_lud "$build/lud" 1024
      run_gl loops3_lud_build --one-run -v --save-csv "$r/loops3_lud_build.csv" -- "$build/lud" 1024
      run_gl loops3_lud --one-run -v --save-csv "$r/loops3_lud.csv" -- "$build/lud" 1024
      timed plain_bfs "$build/bfs" 1048576 8
      run_gl loops3_bfs --one-run -v --save-csv "$r/loops3_bfs.csv" -- "$build/bfs" 1048576 8
      ;;
    gl_loops2)
      build_sample lud
      build_sample bfs
      build_sample split_structs
      for program in "lud $build/lud 1024" "bfs $build/bfs 1048576 8" \
        "structs $build/split_structs 1" "attention python3 samples/apps/torch_attention.py 3"; do
        set -- $program
        name=$1; shift
        timed "plain_$name" "$@"
        run_gl "loops2_$name" --one-run -v --save-csv "$r/loops2_$name.csv" -- "$@"
      done
      run_gl all_structs --all-launches --save-csv "$r/all_structs.csv" -- "$build/split_structs" 1
      ;;
    gl_loops)
      build_sample lud
      build_sample bfs
      timed plain_lud "$build/lud" 1024
      run_gl loops_lud --one-run -v --save-csv "$r/loops_lud.csv" -- "$build/lud" 1024
      timed plain_bfs "$build/bfs" 1048576 8
      run_gl loops_bfs --one-run -v --save-csv "$r/loops_bfs.csv" -- "$build/bfs" 1048576 8
      run_gl all_bfs --all-launches --save-csv "$r/all_bfs.csv" -- "$build/bfs" 1048576 8
      run_gl all_lud --all-launches --save-csv "$r/all_lud.csv" -- "$build/lud" 1024
      ;;
    gl_grids)
      build_sample lud
      build_sample bfs
      timed plain_lud "$build/lud" 1024
      run_gl grids_lud --one-run -v --save-csv "$r/grids_lud.csv" -- "$build/lud" 1024
      run_gl grids_bfs --one-run -v --save-csv "$r/grids_bfs.csv" -- "$build/bfs" 1048576 8
      ;;
    window)
      export TIMED_LIMIT=150
      # The window's trace (hundreds of MB) is kept out of the results.
      mkdir -p /tmp/window
      run_gl window_one -v --window 20 --save-csv /tmp/window/window_one.csv -- \
        python3 samples/apps/torch_cnn_augment.py --seconds 300
      cp /tmp/window/window_one.csv /tmp/window/window_one.gpulint.json "$r"/
      run_gl short_default -v --save-csv "$r/short_default.csv" -- \
        python3 samples/apps/torch_cnn_augment.py 2
      timed plain_attention1 python3 samples/apps/torch_attention.py 1
      run_gl attention1_default -v --save-csv "$r/attention1_default.csv" -- \
        python3 samples/apps/torch_attention.py 1
      export TIMED_LIMIT=300
      run_gl attention1_all -v --all-launches --save-csv "$r/attention1_all.csv" -- \
        python3 samples/apps/torch_attention.py 1
      for f in "$r"/window_one.txt "$r"/short_default.txt "$r"/attention1_*.txt; do
        echo "$(basename "$f" .txt): $(grep -c '^warning\[' "$f") warnings: $(grep '^warning\[' "$f" | sed 's/:.*//' | sort | uniq -c | tr '\n' ' ')" | tee -a "$table"
      done
      ;;
    window2)
      export TIMED_LIMIT=150
      mkdir -p /tmp/window
      run_gl window_two -v --window 20 --save-csv /tmp/window/window_two.csv -- \
        python3 samples/apps/torch_cnn_augment.py --seconds 300
      cp /tmp/window/window_two.csv /tmp/window/window_two.gpulint.json "$r"/
      timed plain_short python3 samples/apps/torch_cnn_augment.py 2
      run_gl short_warm -v --save-csv "$r/short_warm.csv" -- python3 samples/apps/torch_cnn_augment.py 2
      for f in "$r"/window_two.txt "$r"/short_warm.txt; do
        echo "$(basename "$f" .txt): $(grep -c '^warning\[' "$f") warnings: $(grep -A1 '^warning\[' "$f" | grep -o '^warning\[[A-Z0-9]*\] [a-z-]*\|  --> [^ ]*  [^ ]*' | sed 's/.*  //' | tr '\n' ' ')" | tee -a "$table"
      done
      ;;
    window3 | window4)
      export TIMED_LIMIT=150
      mkdir -p /tmp/window
      for name in window_fresh window_warm; do
        run_gl "$name" -v --window 20 --save-csv "/tmp/window/$name.csv" \
          --save-trace "/tmp/window/$name.trace.csv" -- \
          python3 samples/apps/torch_cnn_augment.py --seconds 300
        cp "/tmp/window/$name.csv" "/tmp/window/$name.gpulint.json" "$r"/
        python3 lab/scripts/corpus/trace_timeline.py "/tmp/window/$name.trace.csv" > "$r/$name.timeline.txt"
        head -1 "$r/$name.timeline.txt" | tee -a "$table"
        echo "$name: $(grep -c '^warning\[' "$r/$name.txt") warnings; $(grep -m1 -o 'tracer profiled [0-9]* of them' "$r/$name.txt")" | tee -a "$table"
      done
      ;;
    onedefault)
      export TIMED_LIMIT=200
      build_sample lud
      build_sample bfs
      build_sample split_structs
      for program in "lud 1024" "bfs 1048576 8" "split_structs 1"; do
        set -- $program
        plain_then_one "$1" "$build/$1" "${@:2}"
      done
      for program in "attention torch_attention.py 1" "tf torch_transformer.py 3" "cnn torch_cnn_augment.py 2"; do
        set -- $program
        plain_then_one "$1" python3 "samples/apps/$2" "${@:3}"
      done
      run_gl window_cnn -v --window 600 --save-csv "$r/window_cnn.csv" -- \
        python3 samples/apps/torch_cnn_augment.py 2
      summary window_cnn
      ;;
    onedefault2)
      export TIMED_LIMIT=250
      build_sample lud
      build_sample split_structs
      run_gl one_lud2 -v -- "$build/lud" 1024
      summary one_lud2
      timed plain_cnn2 python3 samples/apps/torch_cnn_augment.py 2
      run_gl one_cnn2 -v --save-csv "$r/one_cnn2.csv" -- python3 samples/apps/torch_cnn_augment.py 2
      summary one_cnn2
      timed plain_attention2 python3 samples/apps/torch_attention.py 1
      run_gl one_attention2 -v --save-csv "$r/one_attention2.csv" -- python3 samples/apps/torch_attention.py 1
      summary one_attention2
      run_gl two_attention2 -v --two-runs --save-csv "$r/two_attention2.csv" -- python3 samples/apps/torch_attention.py 1
      summary two_attention2
      run_gl one_tf2 -v --save-csv "$r/one_tf2.csv" -- python3 samples/apps/torch_transformer.py 3
      summary one_tf2
      run_gl all_structs -v --all-launches --save-csv "$r/all_structs.csv" -- "$build/split_structs" 1
      summary all_structs
      run_gl all_tf -v --all-launches --save-csv "$r/all_tf.csv" -- python3 samples/apps/torch_transformer.py 3
      summary all_tf
      ;;
    onedefault3)
      export TIMED_LIMIT=200
      build_sample lud
      build_sample bfs
      build_sample split_structs
      # The tracer's build and the chip query, once a machine, before the timed runs.
      run_gl warmup -- "$build/lud" 256
      for program in "lud 1024" "bfs 1048576 8" "split_structs 1"; do
        set -- $program
        plain_then_one "$1" "$build/$1" "${@:2}"
      done
      for program in "attention torch_attention.py 1" "tf torch_transformer.py 3" "cnn torch_cnn_augment.py 2"; do
        set -- $program
        plain_then_one "$1" python3 "samples/apps/$2" "${@:3}"
      done
      ;;
    onedefault4)
      export TIMED_LIMIT=200
      torch_warmup
      for program in "attention torch_attention.py 1" "tf torch_transformer.py 3" "cnn torch_cnn_augment.py 2"; do
        set -- $program
        plain_then_one "$1" python3 "samples/apps/$2" "${@:3}"
      done
      ;;
    repeatshare)
      export TIMED_LIMIT=150
      torch_warmup
      for program in "cnn torch_cnn_augment.py 2" "attention torch_attention.py 1" "tf torch_transformer.py 3"; do
        set -- $program
        plain_then_one "$1" python3 "samples/apps/$2" "${@:3}"
      done
      run_gl window_cnn -v --window 20 --save-csv "$r/window_cnn.csv" -- \
        python3 samples/apps/torch_cnn_augment.py --seconds 300
      summary window_cnn
      ;;
    reservecnn)
      export TIMED_LIMIT=100
      torch_warmup
      plain_then_one cnn python3 samples/apps/torch_cnn_augment.py 2
      plain_then_one attention python3 samples/apps/torch_attention.py 1
      ;;
    unlikewaits)
      export TIMED_LIMIT=150
      torch_warmup
      for program in "lud 1024" "bfs 1048576 8" "split_structs 1"; do
        set -- $program
        build_sample "$1"
        plain_then_one "$1" "$build/$1" "${@:2}"
      done
      for program in "cnn torch_cnn_augment.py 2" "attention torch_attention.py 1" "tf torch_transformer.py 3"; do
        set -- $program
        plain_then_one "$1" python3 "samples/apps/$2" "${@:3}"
      done
      window_loop
      ;;
    windowinfo)
      export TIMED_LIMIT=150
      torch_warmup
      window_loop
      grep -A1 '^info\[GL507' "$r/window_cnn.txt" | tee -a "$table"
      plain_then_one cnn python3 samples/apps/torch_cnn_augment.py 2
      ;;
    allcnn)
      export TIMED_LIMIT=400
      run_gl all_cnn -v --all-launches --save-csv "$r/all_cnn.csv" -- \
        python3 samples/apps/torch_cnn_augment.py 2
      summary all_cnn
      ;;
    passes)
      build_sample lud
      build_sample bfs
      for program in "lud 1024" "bfs 1048576 8"; do
        set -- $program
        timed "plain_$1" "$build/$1" "${@:2}"
        run_gl "default_$1" --save-csv "$r/default_$1.csv" -v -- "$build/$1" "${@:2}"
        "$gl" check --exit-zero --format json --per-launch "$r/default_$1.csv" |
          python3 -c 'import json,sys; k=json.load(sys.stdin)["kernels"]; print(sorted({x["metrics"].get("replay_passes") for x in k}))' |
          sed "s/^/$1 replay passes: /" | tee -a "$table"
      done
      ;;
  esac
done
tar czf "$OUT/results.tar.gz" -C "$r" .
