"""Library kernels PyTorch calls, for the names fixture (issue #27): cuDNN convolutions
forward and backward, scaled_dot_product_attention through each of its backends (the
flash-attention kernels PyTorch bundles, cuDNN's, the memory-efficient one), and an NCCL
all-reduce on one rank. Each part says whether it ran; one that this build lacks is skipped."""
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"


def part(name, fn):
    try:
        fn()
        torch.cuda.synchronize()
        print(f"{name}: ran")
    except Exception as e:  # a backend this build or GPU lacks
        print(f"{name}: skipped ({type(e).__name__}: {str(e).splitlines()[0][:120]})")


def conv():
    print("cudnn", torch.backends.cudnn.version())
    net = torch.nn.Conv2d(64, 64, 3, padding=1).to(dev)
    x = torch.randn(16, 64, 56, 56, device=dev, requires_grad=True)
    net(x).sum().backward()


def attention(backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(4, 8, 1024, 64, device=dev, dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    with sdpa_kernel(getattr(SDPBackend, backend)):
        F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()


def nccl():
    import torch.distributed as dist

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device(dev, 0))
    t = torch.ones(1 << 20, device=dev)
    dist.all_reduce(t)
    dist.all_gather_into_tensor(torch.empty(1 << 20, device=dev), t)
    torch.cuda.synchronize()
    dist.destroy_process_group()


def flash_attn_package():
    from flash_attn import flash_attn_func

    q, k, v = (torch.randn(4, 1024, 8, 64, device=dev, dtype=torch.bfloat16) for _ in range(3))
    flash_attn_func(q, k, v, causal=True)


part("cudnn conv", conv)
for backend in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
    part(f"sdpa {backend}", lambda b=backend: attention(b))
part("nccl one rank", nccl)
part("flash_attn package", flash_attn_package)
