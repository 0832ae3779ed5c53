"""A small CNN trained for a few steps: cuDNN convolutions, batch norm and pooling in
fp32 NCHW, then an MLP head compiled with torch.compile (Triton kernels). Issue #37's
second cost case. Argument: steps (default 30).

What an expert expects, written before profiling it (lab/scripts/corpus/cost_check.sh):
- cuDNN's convolutions (TF32 allowed by PyTorch for cuDNN) on tensor cores: quiet; any
  NCHW-to-NHWC conversion kernels cuDNN runs around them are the cost of the NCHW
  layout (channels_last is the fix);
- batch norm, ReLU, pooling: memory-bound and coalesced, quiet;
- the compiled head's Triton kernels: fused elementwise work, quiet; its GEMM in fp32
  on the CUDA cores: fp32-gemm-on-cuda-cores, as in any fp32 matmul.
"""
import sys

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

for step in range(steps):
    loss = torch.nn.functional.cross_entropy(compiled_head(features(x)), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print(f"torch_cnn: {steps} steps, loss {loss.item():.4f}")
