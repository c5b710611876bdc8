#!/usr/bin/env python3
"""The tables gpu_checks.sh prints, from nodeprobe's JSON and the references.

  gpu_table.py stage   STAGE.json EXIT SECONDS
  gpu_table.py pcie    STAGE.json H2D_GBPS D2H_GBPS     (cudaMemcpy reference)
  gpu_table.py nccl    NCCL.json [ALL_REDUCE_PERF.txt]
  gpu_table.py busy    BUSY.json FORCED.json HOLDER_PID BUSY_EXIT FORCED_EXIT
  gpu_table.py diag    GPU_DIAG.json COPY_GBPS GEMM_TFLOPS (copy kernel, cuBLAS)
"""
import json
import sys


def stage(path, rc, took):
    r = json.load(open(path))
    print(f"single-node: verdict {r['verdict']}, exit {rc}, {took} s")
    print(f"{'probe':14} {'verdict':8} findings / facts")
    for p in r["results"]:
        facts = [f["code"] for f in p.get("findings", [])]
        if p["probe"] == "inventory":
            comp = {c["name"]: c for c in p["inventory"]["components"]}
            facts = [f"{n}={comp[n].get('version') or 'absent'}" for n in
                     ("nvidia_driver", "cuda_driver", "cuda_runtime", "nccl") if n in comp]
        if p["probe"] == "locality" and "topology" in p:
            t = p["topology"]
            facts.append(f"{len(t.get('gpus', []))} GPUs, {len(t.get('nics', []))} NICs")
        if p["probe"] == "pcie":
            for m in p.get("measurements", []):
                if m["name"] == "pcie_link_speed" and m["labels"].get("role") == "gpu":
                    facts.append(f"gpu {m['labels']['device']} {m['value']} GT/s")
        if p["probe"] == "gpu" and "gpu" in p:
            g = p["gpu"]
            facts.append(f"driver {g.get('driver_version', '?')}")
            for x in g.get("gpus", []):
                facts.append(f"{x.get('name')} {x.get('bus_id')} ecc={x.get('ecc_enabled')} "
                             f"nvlink {x.get('nvlinks_active', 0)}/{x.get('nvlinks_supported', 0)} "
                             f"procs={x.get('compute_processes', 0)}")
        if p["probe"] == "nccl" and "collective" in p:
            c = p["collective"]
            facts.append(f"nccl {c.get('nccl_version')} ranks {c.get('nranks')} "
                         f"rows {len(c.get('rows', []))}")
        print(f"{p['probe']:14} {p['verdict']:8} {', '.join(facts) or p.get('reason', '')}")


def pcie(path, h2d, d2h):
    ref = {"h2d": float(h2d), "d2h": float(d2h)}
    r = json.load(open(path))
    for p in r["results"]:
        if p["probe"] != "gpu-pcie-bw":
            continue
        if p["verdict"] == "SKIP":
            print("gpu-pcie-bw: SKIP", p.get("reason", ""))
        ms = p.get("measurements", [])
        for m in ms:
            d = m["labels"]["direction"]
            line = f"gpu-pcie-bw {m['labels']['device']} {d}: {m['value']:.2f} GB/s"
            if "expected_gbps" in m["labels"]:
                line += f" (bar from link {m['labels']['expected_gbps']})"
            # CUDA ordinal 0 is the first GPU the probe measured.
            if d in ref and ref[d] > 0 and m["labels"]["device"] == ms[0]["labels"]["device"]:
                line += f", cudaMemcpy {ref[d]:.2f}, ratio {m['value'] / ref[d]:.3f}"
            print(line)


def nccl(path, perf_txt=None):
    r = json.load(open(path))
    if r["verdict"] == "SKIP" or "collective" not in r:
        print("nccl:", r["verdict"], r.get("reason"))
        return
    c = r["collective"]
    ref = {}
    if perf_txt:
        for line in open(perf_txt):
            f = line.split()
            # size count type redop root | time algbw busbw #wrong | in-place ...
            if len(f) >= 13 and f[0].isdigit():
                ref[int(f[0])] = (float(f[5]), float(f[6]), float(f[9]), float(f[10]))
    print(f"nccl {c.get('nccl_version')} ({c.get('nccl_library', '?')}) ranks {c['nranks']} "
          f"verdict {r['verdict']}")
    print("out-of-place (oop) and in-place (ip) beside nccl-tests; ratio = ours/theirs algbw")
    print(f"{'size':>11} {'oop us':>9} {'algbw':>8} {'ref us':>9} {'ref':>8} {'ratio':>6}"
          f" {'ip us':>9} {'algbw':>8} {'ref us':>9} {'ref':>8} {'ratio':>6}")
    for row in c.get("rows", []):
        size = int(row["size"])
        t, a = row["time_us"], row["algbw_gbps"]
        it, ia = row.get("in_place_time_us", 0), row.get("in_place_algbw_gbps", 0)
        rt, ra, rit, ria = ref.get(size, (0, 0, 0, 0))
        ratio = f"{a / ra:.3f}" if ra else "-"
        iratio = f"{ia / ria:.3f}" if ria else "-"
        print(f"{size:>11} {t:>9.1f} {a:>8.2f} {rt:>9.1f} {ra:>8.2f} {ratio:>6}"
              f" {it:>9.1f} {ia:>8.2f} {rit:>9.1f} {ria:>8.2f} {iratio:>6}")
    for f in r.get("findings", []):
        print(f"  {f['severity']} {f['code']}: {f['message'][:160]}")


def busy(busy_path, forced_path, holder, busy_rc, forced_rc):
    b, f = json.load(open(busy_path)), json.load(open(forced_path))
    print(f"busy-node guard (holder pid {holder}): exit {busy_rc}, forced exit {forced_rc}")
    for p in b["results"] + [dict(f["results"][0], probe=f["results"][0]["probe"] + " --force")]:
        codes = [x["code"] for x in p.get("findings", [])]
        extra = p.get("reason", "")
        if p["probe"] == "gpu":
            extra = "pids " + ",".join(str(x) for g in p.get("gpu", {}).get("gpus", [])
                                        for x in g.get("compute_pids", []))
        print(f"  {p['probe']:22} {p['verdict']:6} {' '.join(codes)} {extra[:150]}")


def diag(path, copy_gbps, gemm_tflops):
    ref = {"hbm_triad_gbps": ("copy kernel", float(copy_gbps)),
           "gemm_tflops": ("cuBLAS direct", float(gemm_tflops))}
    r = json.load(open(path))["results"][0]
    first = None
    for m in r.get("measurements", []):
        gpu = m.get("labels", {}).get("gpu", "")
        first = first or gpu
        if m["name"] not in ref or gpu != first:
            continue  # CUDA ordinal 0 is the first GPU the probe measured
        name, value = ref[m["name"]]
        ratio = m["value"] / value if value > 0 else 0
        print(f"gpu-diag {gpu} {m['name']}: {m['value']:.1f}, {name} {value:.1f}, "
              f"ratio {ratio:.3f} ({'within' if abs(ratio - 1) <= 0.05 else 'OUTSIDE'} 5%)")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"stage": stage, "pcie": pcie, "nccl": nccl, "busy": busy, "diag": diag}[cmd](*args)
