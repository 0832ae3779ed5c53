"""torch_cnn.py's CNN fed by a per-sample augmentation loop, as a dataset's __getitem__
transforms run on the GPU one image at a time: flip, pad-and-crop, brightness and
normalisation of each of the batch's 64 images, then a stack. Issue #58's CNN with a
per-sample augmentation loop, and its long loop for `--window`.
Arguments: steps (default 30); or `--seconds S`: steps until S seconds have passed.

What an expert expects, written before profiling it (lab/scripts/corpus/augment_check.sh):
- the augmentation loop: about 5 launches an image, 300-odd a step, each a few
  microseconds on 12,288 elements and each waiting on Python to launch it: the GPU waits
  most of the time it is active. launch-bound (or launch-burst on the loop, if the model's
  kernels keep the run's waiting under half) is the warning; the fix is to augment the
  batch at once (one flip mask, one crop by gather, one multiply) or compile the loop;
- the model's kernels as in torch_cnn.py: its fp32 GEMM on the CUDA cores (cuBLAS),
  cuDNN's wgrad uncoalesced load and fprop misaligned access, the rest quiet or info;
- `--window 20` on the long loop: the same warnings as 30 steps, within 60 s.
"""
import random
import sys
import time

import torch

torch.manual_seed(0)
random.seed(0)
dev = "cuda"
seconds = None
if len(sys.argv) > 2 and sys.argv[1] == "--seconds":
    seconds = float(sys.argv[2])
steps = int(sys.argv[1]) if len(sys.argv) > 1 and seconds is None else 30


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
images = torch.rand(1024, 3, 64, 64, device=dev)
classes = torch.randint(0, 10, (1024,), device=dev)
mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(3, 1, 1)


def augment(image):
    """One image, as a per-sample transform pipeline does it."""
    if random.random() < 0.5:
        image = image.flip(-1)
    i, j = random.randint(0, 8), random.randint(0, 8)
    image = torch.nn.functional.pad(image, (4, 4, 4, 4))[:, i : i + 64, j : j + 64]
    image = image * random.uniform(0.8, 1.2)
    return (image - mean) / std


start = time.monotonic()
step = 0
while (seconds is None and step < steps) or (
    seconds is not None and time.monotonic() - start < seconds
):
    picked = [random.randrange(1024) for _ in range(64)]
    x = torch.stack([augment(images[k]) for k in picked])
    labels = classes[picked]
    loss = torch.nn.functional.cross_entropy(compiled_head(features(x)), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    step += 1
torch.cuda.synchronize()
print(f"torch_cnn_augment: {step} steps, loss {loss.item():.4f}")
