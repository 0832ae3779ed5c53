"""NCCL collectives between the ranks torchrun starts (one per GPU), for the names fixture
(issue #27): all-reduce, all-gather, reduce-scatter and broadcast at a few sizes.
    usage: torchrun --standalone --nproc_per_node 2 nccl_ranks.py"""
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
world = dist.get_world_size()
for n in (1 << 10, 1 << 20, 1 << 24):
    t = torch.ones(n, device="cuda")
    dist.all_reduce(t)
    gathered = torch.empty(n * world, device="cuda")
    dist.all_gather_into_tensor(gathered, t)
    out = torch.empty(n, device="cuda")
    dist.reduce_scatter_tensor(out, gathered)
    dist.broadcast(t, src=0)
torch.cuda.synchronize()
if rank == 0:
    print(f"nccl_ranks: {world} ranks, last sum {float(t[0])}")
dist.destroy_process_group()
