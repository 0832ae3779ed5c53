"""The three GEMMs of samples/apps/torch_train.py's linear layers (512 x 1024 x 4096 and
its backward shapes), each in FP32 on the CUDA cores, then with TF32 tensor cores allowed
(torch.backends.cuda.matmul.allow_tf32), then under bfloat16 autocast: a before/after pair
for GL601 per shape, profiled by lab/scripts/precision_pairs.sh."""
import torch

torch.manual_seed(0)
shapes = [(512, 1024, 4096), (512, 4096, 1024), (4096, 512, 1024)]
mats = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")) for m, k, n in shapes]
for mode in ["fp32", "tf32", "bf16"]:
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    for a, b in mats:
        if mode == "bf16":
            with torch.autocast("cuda", dtype=torch.bfloat16):
                c = a @ b
        else:
            c = a @ b
    torch.cuda.synchronize()
print("torch_precision done", float(c[0, 0]))
