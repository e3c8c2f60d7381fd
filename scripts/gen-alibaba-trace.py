#!/usr/bin/env python3
"""Writes a synthetic trace in the Alibaba GPU cluster trace v2023 ("openb") CSV format.

    scripts/gen-alibaba-trace.py OUTDIR [--nodes 1500] [--pods 8000] [--seed 1]

produces OUTDIR/openb_node_list_synthetic.csv and OUTDIR/openb_pod_list_synthetic.csv with the columns of
the real lists (alibaba/clusterdata cluster-trace-gpu-v2023): nodes with a GPU model and 0/2/4/8 GPUs, pods
with CPU/memory/GPU requests, a gpu_spec on some GPU pods, and creation/scheduled/deletion times. The shape
(node mix, request sizes, the share of GPU pods, arrival over about a week) follows the published list's
summary; the values are random (seeded, so the files are the same on every run). Used for the simulator
benchmark in docs/performance.md; not committed because the files are generated.
"""

import argparse
import os
import random

# (model, gpus per node, cpu_milli, memory_mib, share of nodes)
NODE_KINDS = [
    ("", 0, 96000, 786432, 0.20),
    ("V100M16", 8, 96000, 393216, 0.15),
    ("V100M32", 8, 96000, 786432, 0.12),
    ("P100", 2, 64000, 262144, 0.10),
    ("T4", 4, 64000, 262144, 0.13),
    ("A10", 1, 128000, 786432, 0.20),
    ("G2", 8, 128000, 786432, 0.05),
    ("G3", 8, 96000, 393216, 0.05),
]


def pick(rng, weighted):
    x = rng.random() * sum(w for _, w in weighted)
    for v, w in weighted:
        x -= w
        if x < 0:
            return v
    return weighted[-1][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--nodes", type=int, default=1500)
    ap.add_argument("--pods", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--span", type=int, default=7 * 86400, help="arrival span in seconds")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "openb_node_list_synthetic.csv"), "w") as f:
        f.write("sn,cpu_milli,memory_mib,gpu,model\n")
        for i in range(a.nodes):
            model, gpus, cpu, mem, _ = pick(rng, [(k, k[4]) for k in NODE_KINDS])
            f.write(f"openb-node-{i:04d},{cpu},{mem},{gpus},{model}\n")
    with open(os.path.join(a.outdir, "openb_pod_list_synthetic.csv"), "w") as f:
        f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n")
        t = 0
        mean_gap = a.span / max(1, a.pods)
        for i in range(a.pods):
            t += int(rng.expovariate(1.0 / mean_gap))
            num_gpu = pick(rng, [(0, 0.12), (1, 0.78), (2, 0.05), (4, 0.03), (8, 0.02)])
            gpu_milli = 1000 if num_gpu != 1 else pick(rng, [(1000, 0.6), (500, 0.2), (250, 0.1), (100, 0.1)])
            if num_gpu == 0:
                gpu_milli = 0
            cpu = pick(rng, [(1000, 0.15), (2000, 0.2), (4000, 0.25), (8000, 0.2), (12000, 0.1), (32000, 0.1)])
            mem = cpu * pick(rng, [(2, 0.4), (4, 0.4), (8, 0.2)])
            spec = ""
            if num_gpu > 0 and rng.random() < 0.3:
                # Only models whose nodes have enough GPUs (the trace's pods all fit somewhere).
                fits = [k[0] for k in NODE_KINDS if k[0] and k[1] >= num_gpu]
                spec = "|".join(sorted(rng.sample(fits, min(len(fits), pick(rng, [(1, 0.7), (2, 0.3)])))))
            qos = pick(rng, [("LS", 0.5), ("BE", 0.2), ("Burstable", 0.25), ("Guaranteed", 0.05)])
            phase = pick(rng, [("Succeeded", 0.7), ("Failed", 0.1), ("Running", 0.15), ("Pending", 0.05)])
            sched = t + int(rng.expovariate(1 / 30.0))
            run = int(rng.lognormvariate(8.0, 1.2))  # median ~50 min
            if phase == "Pending":
                f.write(f"openb-pod-{i:04d},{cpu},{mem},{num_gpu},{gpu_milli},{spec},{qos},{phase},{t},,\n")
            elif phase == "Running":
                f.write(f"openb-pod-{i:04d},{cpu},{mem},{num_gpu},{gpu_milli},{spec},{qos},{phase},{t},,{sched}\n")
            else:
                f.write(f"openb-pod-{i:04d},{cpu},{mem},{num_gpu},{gpu_milli},{spec},{qos},{phase},{t},"
                        f"{sched + run},{sched}\n")


if __name__ == "__main__":
    main()
