"""Issue #37: torch_cnn.py's training loop (torch.compile'd head, cuDNN features) with the
wall time of each step printed (a synchronize ends each), to see which stretch of a run
ncu slows: before the launch it profiles, after it, or all along. Argument: steps (30).
launch_cost.sh's stage `steps` runs it plain and under ncu with one launch chosen early,
late, never, and late with a launch count."""
import sys
import time

import torch

torch.manual_seed(0)
dev = "cuda"
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30


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
compiled_head = torch.compile(head)
opt = torch.optim.SGD(list(features.parameters()) + list(head.parameters()), lr=1e-2)
x = torch.randn(64, 3, 64, 64, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)

t0 = last = time.time()
for step in range(steps):
    loss = torch.nn.functional.cross_entropy(compiled_head(features(x)), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    now = time.time()
    print(f"step {step:2d} {now - last:7.3f} s (at {now - t0:6.2f})", flush=True)
    last = now
