"""The same computation under torch.compile: Inductor generates Triton kernels
(triton_*), which gpulint treats as generated code."""
import torch

torch.manual_seed(0)
dev = "cuda"
x = torch.randn(4096, 4096, device=dev)
w = torch.randn(4096, 4096, device=dev)


@torch.compile
def step(x, w):
    y = torch.relu(x @ w)
    return (y.t() * 2.0 + 1.0).sum(dim=0)


for _ in range(2):
    out = step(x, w)
torch.cuda.synchronize()
print("torch_compile done", float(out[0]))
