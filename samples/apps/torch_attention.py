"""A 2-layer transformer trained for a few steps, written as many people first write one:
FP32 matrix multiplies (no TF32), attention by hand (a masked softmax between two batched
matmuls), and AdamW without its fused kernels. `--fixed` applies what gpulint advises:
`torch.set_float32_matmul_precision("high")` (TF32 tensor cores),
`F.scaled_dot_product_attention`, and `AdamW(fused=True)`; `--tf32`, `--sdpa` and `--fused`
apply one each. Prints the mean step time.
    usage: python3 torch_attention.py [STEPS] [--fixed | --tf32 --sdpa --fused]"""
import math
import sys
import time

import torch
import torch.nn.functional as F

fixed = "--fixed" in sys.argv
tf32 = fixed or "--tf32" in sys.argv
sdpa = fixed or "--sdpa" in sys.argv
fused = fixed or "--fused" in sys.argv
args = [a for a in sys.argv[1:] if not a.startswith("--")]
steps = int(args[0]) if args else 20
torch.manual_seed(0)
dev = "cuda"
if tf32:
    torch.set_float32_matmul_precision("high")

batch, seq, width, heads = 16, 512, 512, 8
head = width // heads


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.norm1 = torch.nn.LayerNorm(width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width)
        )

    def attention(self, x):
        q, k, v = self.qkv(x).split(width, dim=-1)
        q, k, v = (t.view(batch, seq, heads, head).transpose(1, 2) for t in (q, k, v))
        if sdpa:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(head)
            mask = torch.ones(seq, seq, device=dev, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
            out = scores.softmax(dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(batch, seq, width))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


model = torch.nn.Sequential(Block(), Block()).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=fused)
x = torch.randn(batch, seq, width, device=dev)
target = torch.randn(batch, seq, width, device=dev)


def step():
    loss = F.mse_loss(model(x), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


step()  # warm-up: allocations, cuBLAS handles, kernel selection
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(steps):
    loss = step()
torch.cuda.synchronize()
elapsed = time.perf_counter() - start
changes = [n for n, on in (("tf32", tf32), ("sdpa", sdpa), ("fused", fused)) if on]
print(f"torch_attention {'+'.join(changes) or 'as written'}: {steps} steps, "
      f"{1000 * elapsed / steps:.2f} ms per step, loss {float(loss):.4f}")
