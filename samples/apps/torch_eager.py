"""A small PyTorch program in eager mode, with the call-site mistakes real code makes:
a transposed tensor made contiguous, a gather by random indices, and a layout change.
Profiled by samples/run_on_gpu.sh to test gpulint's kernel origins."""
import torch

torch.manual_seed(0)
dev = "cuda"
x = torch.randn(4096, 4096, device=dev)
w = torch.randn(4096, 4096, device=dev)
idx = torch.randint(0, 4096 * 4096, (1 << 22,), device=dev)

for _ in range(2):
    y = torch.relu(x @ w)                 # cuBLAS GEMM, then an ATen elementwise kernel
    z = y.t().contiguous()                # transpose copy: uncoalesced on one side
    g = z.flatten()[idx]                  # gather by random index
    s = g.sum()                           # reduction
torch.cuda.synchronize()
print("torch_eager done", float(s))
