# A PyTorch script that profiles itself with torch.profiler (Kineto, which takes CUPTI).
# Expected: bare, the profiler records CUDA kernel events. Under `gpulint python3
# torch_profiler.py` the script ends with its result in each run; whether its own profiler
# records kernels while another CUPTI client (gpulint's tracer, or ncu) holds the device is
# what this measures.
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(1024, 1024, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        y = (x @ x).relu().sum()
    torch.cuda.synchronize()
kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
print(f"result {y.item():.4e}; torch.profiler recorded {len(kernels)} CUDA kernel events")
