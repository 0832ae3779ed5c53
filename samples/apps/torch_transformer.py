"""A 2-layer transformer encoder trained for a few steps, as a PyTorch user's first model:
fp32, nn.TransformerEncoder, AdamW. Issue #37's cost case: ~80 launch configurations,
each launched once a step. Arguments: steps (default 20); `--seconds S` runs steps until
S seconds have passed instead (the 5-minute loop for `gpulint run --window`).

What an expert expects, written before profiling it (lab/scripts/corpus/cost_check.sh):
- the linear layers' GEMMs run in fp32 on the CUDA cores (PyTorch leaves TF32 off for
  matmuls): fp32-gemm-on-cuda-cores, fixed by torch.set_float32_matmul_precision("high");
- attention (fp32, so the memory-efficient kernel, not flash) and the softmax, layer
  norm, dropout and elementwise kernels: quiet, coalesced and memory-bound;
- the optimizer's foreach kernels: quiet.
"""
import sys
import time

import torch

torch.manual_seed(0)
dev = "cuda"
args = sys.argv[1:]
seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else None
steps = int(args[0]) if args and args[0] != "--seconds" else 20
layer = torch.nn.TransformerEncoderLayer(
    d_model=512, nhead=8, dim_feedforward=2048, batch_first=True
)
model = torch.nn.Sequential(
    torch.nn.TransformerEncoder(layer, num_layers=2),
    torch.nn.Linear(512, 512),
).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(32, 128, 512, device=dev)
target = torch.randn(32, 128, 512, device=dev)

start = time.time()
step = 0
while (seconds is None and step < steps) or (seconds is not None and time.time() - start < seconds):
    loss = torch.nn.functional.mse_loss(model(x), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    step += 1
torch.cuda.synchronize()
print(f"torch_transformer: {step} steps, loss {loss.item():.4f}")
