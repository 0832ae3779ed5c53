"""Issue #37: what one profiled launch costs, kernel by kernel. torch_cnn.py's features and
head, eager (no torch.compile: its start would hide seconds), a few training steps.
Arguments: steps (default 3), then GiB of extra device memory to hold (default 0), to see
whether ncu's save and restore of memory between replay passes grows with the footprint.

Expected before any run (written with the probe, lab/scripts/corpus/launch_cost.sh):
- the elementwise, batch-norm and pooling kernels cost what a small kernel does under 10
  passes, some 0.3 s a launch, whatever the footprint;
- cuDNN's and cuBLAS's kernels cost more: their code is large, and the instruction-level
  (sass) metrics patch it; without those 14 metrics they cost about what a small one does;
- extra memory held costs nothing per launch unless ncu saves it between passes.
"""
import sys

import torch

torch.manual_seed(0)
dev = "cuda"
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
extra_gib = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
held = None
if extra_gib > 0:
    held = torch.ones(int(extra_gib * 2**30 // 4), device=dev)


def block(c_in, c_out):
    return torch.nn.Sequential(
        torch.nn.Conv2d(c_in, c_out, 3, padding=1),
        torch.nn.BatchNorm2d(c_out),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
    )


features = torch.nn.Sequential(block(3, 32), block(32, 64), block(64, 128)).to(dev)
head = torch.nn.Sequential(
    torch.nn.Flatten(),
    torch.nn.Linear(128 * 8 * 8, 512),
    torch.nn.GELU(),
    torch.nn.Linear(512, 10),
).to(dev)
opt = torch.optim.SGD(list(features.parameters()) + list(head.parameters()), lr=1e-2)
x = torch.randn(64, 3, 64, 64, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
for step in range(steps):
    loss = torch.nn.functional.cross_entropy(head(features(x)), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print(f"launch_cost: {steps} steps, {extra_gib} GiB held, loss {loss.item():.4f}")
