"""A data-parallel training loop as most GPU time is spent today: DistributedDataParallel over
NCCL, one rank per GPU, started by torchrun (samples/apps/ddp_run.sh). Issue #42.
A 4-layer fp32 MLP (4096 wide, 67 M parameters, 268 MB of gradients: about 11 of DDP's
25 MB buckets a step), batch 256 per rank, SGD. Arguments: steps (default 20).
    usage: torchrun --standalone --nproc_per_node N train_ddp.py [STEPS]

What an expert expects, written before any capture:
- on every rank the same kernels: cuBLAS's fp32 GEMMs on the CUDA cores (PyTorch leaves
  TF32 off): fp32-gemm-on-cuda-cores, the same finding on each rank, so one finding for N
  ranks; the ReLU, MSE and SGD's foreach kernels: quiet;
- with 2 ranks or more, NCCL's all-reduce kernels (ncclDevKernel_AllReduce_Sum_f32_RING_LL
  or the like), one per bucket, overlapping the backward pass: profiling them under ncu
  would hang (a collective waits for ranks ncu has stopped), so they are not profiled;
  their share of each rank's GPU time is reported, about as large as the GEMMs' (2 x 268
  MB over NVLink each step against ~100 GFLOP of FP32 on CUDA cores): over half would call
  for larger buckets, overlap or gradient accumulation;
- with 1 rank (one GPU), NCCL reduces in place: no NCCL kernel at all.
- with ONE_GPU_EACH=1 each rank is shown only its own GPU, as device 0 (as Slurm's
  per-task binding does): the same findings and shares, the shares named by rank (torchrun
  sets RANK), every rank's launches on "device 0", and each rank's launch waits its own.
"""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
if os.environ.get("ONE_GPU_EACH") == "1":
    # Set before CUDA starts (torch starts it lazily): the rank sees its GPU alone.
    os.environ["CUDA_VISIBLE_DEVICES"] = str(local)
    local = 0
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
dist.init_process_group("nccl", device_id=dev)
torch.manual_seed(rank)
width = 4096
layers = []
for _ in range(4):
    layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
model = DistributedDataParallel(torch.nn.Sequential(*layers[:-1]).to(dev), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, width, device=dev)
target = torch.randn(256, width, device=dev)
for _ in range(steps):
    loss = torch.nn.functional.mse_loss(model(x), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
if rank == 0:
    print(f"train_ddp: {dist.get_world_size()} rank(s), {steps} steps, loss {loss.item():.4f}")
dist.destroy_process_group()
