#!/usr/bin/env python3
"""Joins `backprop bench --json` with shared/bench/torch_reference.py's JSON lines on (net, batch)
and prints the Markdown tables of docs/performance.md.

  join_bench.py OURS.jsonl TORCH.jsonl [TORCH.jsonl ...]

Each of our devices is set against the PyTorch runs of its class: a CPU device against
torch_reference.py --device cpu, a GPU or accelerator against --device cuda. Lines that are not
JSON (progress, notes) are skipped.
"""
import json
import sys


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        for text in f:
            text = text.strip()
            if text.startswith("{"):
                yield json.loads(text)


def is_cpu_torch(line):
    return line["device"] == "cpu"


def fmt(value, digits=3):
    if value is None:
        return "-"
    if value >= 1000:
        return f"{round(value):,}"
    return f"{value:.{digits}g}"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    ours = list(read_lines(argv[0]))
    torch = [line for path in argv[1:] for line in read_lines(path)]
    devices = [line for line in ours if line.get("record") == "device"]
    training = [line for line in ours if line.get("record") == "training"]

    print("| device | kind | driver | copy GB/s | SGEMM GFLOP/s (n) | launch us | launch + wait us |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for d in devices:
        sgemm = ", ".join(f"{fmt(r['gflops_per_s'])} ({r['size']})" + ("" if r["correct"] else " WRONG")
                          for r in d.get("sgemm", []))
        print(f"| {d['device']} | {d['device_kind']} | {d['driver']} | {fmt(d.get('copy_gb_per_s'))} | {sgemm or '-'} | "
              f"{fmt(d.get('enqueue_us'))} | {fmt(d.get('enqueue_finish_us'))} |" + (f" failed: {d['error']}" if "error" in d else ""))
    print()

    print("| device | net | batch | images/s | PyTorch images/s | ours / PyTorch | first batch cold / warm s | "
          "memory MiB | kernels + GEMMs per step | GFLOP/s (of SGEMM peak) | GB/s (of copy) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in training:
        kind = next((d["device_kind"] for d in devices if d["device_index"] == t["device_index"]), "")
        match = [r for r in torch if r["net"] == t["net"] and r["batch"] == t["batch"]
                 and is_cpu_torch(r) == (kind == "CPU")]
        if "error" in t:
            print(f"| {t['device']} | {t['net']} | {t['batch']} | failed: {t['error']} |||||||")
            continue
        reference = match[0]["images_per_s"] if match else None
        ratio = f"{t['images_per_s'] / reference:.2f}" if reference else "-"
        start = f"{fmt(t['first_batch_cold_s'])} / {fmt(t['first_batch_warm_s'])}"
        share = lambda rate, part: f"{fmt(rate)} ({100 * part:.0f}%)" if part is not None else fmt(rate)
        print(f"| {t['device']} | {t['net']} | {t['batch']} | {fmt(t['images_per_s'])} | {fmt(reference)} | {ratio} | "
              f"{start} | {t['device_bytes'] / 2**20:.1f} | {t['kernels_per_step']} + {t['gemms_per_step']} | "
              f"{share(t['step_gflops_per_s'], t['fraction_of_sgemm_peak'])} | "
              f"{share(t['step_gb_per_s'], t['fraction_of_bandwidth'])} |")


if __name__ == "__main__":
    main(sys.argv[1:])
