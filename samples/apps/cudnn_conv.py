"""A cuDNN convolution with batch norm, in NCHW or channels_last (argv[1])."""
import sys

import torch

torch.manual_seed(0)
layout = sys.argv[1] if len(sys.argv) > 1 else "nchw"
fmt = torch.channels_last if layout == "channels_last" else torch.contiguous_format
torch.backends.cudnn.benchmark = False
net = torch.nn.Sequential(
    torch.nn.Conv2d(64, 128, 3, padding=1),
    torch.nn.BatchNorm2d(128),
    torch.nn.ReLU(),
).cuda().to(memory_format=fmt)
x = torch.randn(32, 64, 56, 56, device="cuda").to(memory_format=fmt)
with torch.no_grad():
    for _ in range(2):
        y = net(x)
torch.cuda.synchronize()
print("cudnn_conv", layout, "done", float(y.mean()))
