#!/usr/bin/env python3
"""Start-up cost of cachewise: wall time and peak memory of the commands a
pre-commit hook or a shell runs (issue 14's goal: `--version` and `lint` of a
small template in at most 20 ms and 20 MiB, CUDA compiled in or not).

  python3 bench/startup.py build/src/cachewise [--runs N] [--check]

Each command runs N times (default 30) from the source root; the table gives
the best and median wall time, the median CPU time (user + system: what a
busy machine does not inflate as much) and the largest peak RSS (the
child's ru_maxrss, from wait4). The goal is judged on the best run (the
least disturbed by other work on a shared machine) and the largest peak;
with --check the exit status is 1 when either misses it. It also says which
shared libraries the binary itself needs (readelf -d): the CUDA runtime and
cuBLAS must not be among them; the CUDA module (cachewise-cuda.so next to
the binary) is loaded by `bench prefill` only.

Vocabularies: the first run on a machine reads, checks and hashes a rank
file and writes its image (tokenize/vocabulary_image.hpp); later runs map the
image. Each command runs once unmeasured first, with images in a folder of
the bench's own, so the gated rows are the later runs; the "first run" row,
not gated, starts each run from an empty folder.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_S = 0.020
GOAL_KIB = 20 * 1024

COMMANDS = [
    ("--version", ["--version"], True),
    ("lint request-template", ["lint", "samples/request-template.json"], True),
    # An OpenAI template: exact token counts load o200k_base (its SHA-256,
    # 200k ranks and tables) inside the same budget.
    ("lint gpt56-breakpoint-template", ["lint", "tests/cli/data/gpt56-breakpoint-template.json"],
     True),
    ("  the same, first run (no image)", ["lint", "tests/cli/data/gpt56-breakpoint-template.json"],
     "first"),
    ("bench prefill --gpu (modelled)",
     ["bench", "prefill", "--gpu", "H200", "--model", "llama-3.1-8b", "--tokens", "8192"], False),
    ("analyze agent-session", ["analyze", "samples/agent-session.jsonl"], False),
]


def run_once(argv, env):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def needed_libraries(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__.strip())
        return 2
    binary = os.path.abspath(args[0])
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 30
    check = "--check" in args
    os.chdir(ROOT)

    libs = needed_libraries(binary)
    cuda = [lib for lib in libs if lib.startswith(("libcudart", "libcublas"))]
    module = os.path.join(os.path.dirname(binary), "cachewise-cuda.so")
    print(f"binary: {binary}")
    print(f"needs: {', '.join(libs)}")
    print(f"CUDA module next to it: {'yes' if os.path.exists(module) else 'no'}; "
          f"CUDA libraries linked by the binary: {', '.join(cuda) if cuda else 'none'}")
    print(f"{runs} runs each, {os.cpu_count()} cores\n")
    print(f"{'command':<34} {'best ms':>8} {'median ms':>10} {'cpu ms':>7} {'peak MiB':>9}  goal")
    failed = bool(cuda)
    images = tempfile.mkdtemp(prefix="cachewise-startup-")
    env = dict(os.environ, CACHEWISE_VOCABULARY_CACHE=images)
    for name, command, gated in COMMANDS:
        walls, cpus, peaks = [], [], []
        run_once([binary] + command, env)  # writes the images the later runs map
        for _ in range(runs):
            if gated == "first":
                shutil.rmtree(images, ignore_errors=True)
            wall, cpu, peak, code = run_once([binary] + command, env)
            if code not in (0, 1):
                print(f"{name}: exit status {code}", file=sys.stderr)
                return 2
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
        median = statistics.median(walls)
        peak = max(peaks)
        verdict = ""
        if gated is True:
            ok = min(walls) <= GOAL_S and peak <= GOAL_KIB
            failed |= not ok
            verdict = "ok" if ok else "MISSED (20 ms, 20 MiB)"
        print(f"{name:<34} {1e3 * min(walls):>8.1f} {1e3 * median:>10.1f} "
              f"{1e3 * statistics.median(cpus):>7.1f} {peak / 1024:>9.1f}  "
              f"{verdict}")
    shutil.rmtree(images, ignore_errors=True)
    return 1 if check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
