"""Chains of small elementwise kernels, as eager PyTorch runs them: an activation written out
op by op (a tanh-approximated GELU with a bias and a residual scale, ten kernels), and an
exponential moving average of a model's weights updated parameter by parameter in a Python
loop (two kernels per tensor, 96 tensors). Each kernel takes a few microseconds; the step
waits on launches. `--compile` wraps the activation in torch.compile (one fused kernel),
`--foreach` updates the average with torch._foreach_lerp_ (a few multi-tensor kernels),
`--fixed` does both. Prints the mean step time.
    usage: python3 torch_chain.py [STEPS] [--fixed | --compile --foreach]"""
# What an expert expects, written from this source before any capture (2026-12-01):
# - as written, a step launches about 106 kernels: 10 ATen elementwise kernels of the
#   activation over 2 Mi floats (8 MiB each way, 3-6 us each on an H200) and 96 of the
#   average (mul_ and add_ on 64 Ki or 256 floats, about 2 us each). The GPU works about
#   0.2-0.3 ms per step, while eager dispatch costs the CPU 5-10 us per op: the step takes
#   0.6-1 ms, the GPU mostly idle between launches. No kernel is badly written: the
#   per-kernel rules should stay quiet, and the finding is the chain, with the launch count.
# - --compile makes the activation one Triton kernel (about 5x less traffic, 9 fewer
#   launches); --foreach makes the average a few multi-tensor kernels (96 -> about 4 launches
#   per step). Each saves most of its part's launches; together the step should fall 3-5x.
import sys
import time

import torch

fixed = "--fixed" in sys.argv
compiled = fixed or "--compile" in sys.argv
foreach = fixed or "--foreach" in sys.argv
args = [a for a in sys.argv[1:] if not a.startswith("--")]
steps = int(args[0]) if args else 200
torch.manual_seed(0)
dev = "cuda"

x = torch.randn(2048, 1024, device=dev)
bias = torch.randn(1024, device=dev)
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(48)]).to(dev)
ema = [p.detach().clone() for p in model.parameters()]
params = [p.detach() for p in model.parameters()]
decay = 0.999


def activation(x, bias):
    h = x + bias
    inner = 0.7978845608 * (h + 0.044715 * h * h * h)
    return 0.5 * h * (1.0 + torch.tanh(inner)) * 0.9 + 0.1 * x


if compiled:
    activation = torch.compile(activation)


def update_average():
    if foreach:
        torch._foreach_lerp_(ema, params, 1.0 - decay)
    else:
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1.0 - decay)


def step():
    y = activation(x, bias)
    update_average()
    return y


for _ in range(3):  # warm-up: compilation, allocations
    step()
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(steps):
    y = step()
torch.cuda.synchronize()
elapsed = time.perf_counter() - start
changes = [n for n, on in (("compile", compiled), ("foreach", foreach)) if on]
print(f"torch_chain {'+'.join(changes) or 'as written'}: {steps} steps, "
      f"{1e6 * elapsed / steps:.1f} us per step, checksum {float(y.mean()):.6f}")
