"""A small PyTorch training loop: the same few dozen kernels launched again and again,
as in any real training run. Each step also makes its input batch from a transposed
view (`.t().contiguous()`), a call-site mistake that launches an uncoalesced copy every
step. Profiled by `gpulint run` to test how repeated launches fold (issue #6): one row
and one finding per kernel, with the launch count and the range of the evidence."""
import sys

import torch

torch.manual_seed(0)
dev = "cuda"
# Steps (argument 1, default 60): about 24 launches each.
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 4096),
    torch.nn.GELU(),
    torch.nn.Linear(4096, 1024),
).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
# Stored feature-major: each step's batch is a transposed slice made contiguous.
data = torch.randn(1024, 512 * steps, device=dev)
target = torch.randn(512 * steps, 1024, device=dev)

for step in range(steps):
    x = data[:, step * 512 : (step + 1) * 512].t().contiguous()
    loss = torch.nn.functional.mse_loss(model(x), target[step * 512 : (step + 1) * 512])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("torch_train done", float(loss))
