"""Three half-precision GEMMs through PyTorch (cuBLAS picks CUTLASS-style tensor-core
kernels): the program behind lab/scripts/wild_forms.sh's captures."""
import torch

a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
for _ in range(3):
    c = a @ b
torch.cuda.synchronize()
print("torch_gemm done", float(c[0, 0]))
