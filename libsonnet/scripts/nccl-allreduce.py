"""Two-node NCCL all-reduce over the training fabric, one process per GPU (torchrun).

Checks the sum is right, then times all-reduces of NCCL_TEST_MIB MiB and prints one line
"nccl-test: PASS ..." with the bus bandwidth (nccl-tests' definition, doc/PERFORMANCE.md:
algorithm bandwidth x 2(n-1)/n) from rank 0; any failure exits non-zero. NCCL_NET=IB in the pod
makes NCCL refuse to fall back to TCP sockets, so a PASS means the fabric carried the traffic.
"""

import os
import time

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
elements = int(os.environ.get("NCCL_TEST_MIB", "1024")) * 2**20 // 4
data = torch.ones(elements, dtype=torch.float32, device="cuda")
dist.all_reduce(data)
torch.cuda.synchronize()
if data[0].item() != world or data[-1].item() != world:
    raise SystemExit(f"nccl-test: FAIL rank={rank}: all-reduce of ones gave {data[0].item()}, expected {world}")
iterations = 20
for _ in range(5):
    dist.all_reduce(data)
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(iterations):
    dist.all_reduce(data)
torch.cuda.synchronize()
seconds = (time.perf_counter() - start) / iterations
bus = elements * 4 / seconds * 2 * (world - 1) / world / 1e9
if rank == 0:
    print(
        f"nccl-test: PASS ranks={world} size={elements * 4 // 2**20}MiB busbw={bus:.1f}GB/s time={seconds * 1e3:.2f}ms"
    )
dist.destroy_process_group()
