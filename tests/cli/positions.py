#!/usr/bin/env python3
"""Identical prefixes sit at identical token positions in chain and audit.

positions.py CACHEWISE LOG...

For every two requests of `chain --format json` whose identity chains agree
up to segment k, the cumulative token counts up to k must agree too; and for
every request audit pairs with a partner, the shared tokens audit reports
must end on a segment boundary of chain's request whose chain hash is the
partner's there. Exit 1 with the first disagreement.
"""
import json
import subprocess
import sys


def run(binary, *args):
    out = subprocess.run([binary, *args, "--format", "json", "--quiet"], check=False,
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    binary, logs = sys.argv[1], sys.argv[2:]
    chain = {r["id"]: r["segments"] for r in run(binary, "chain", *logs)["requests"]}
    at_link = {}  # chain hash -> (request id, cumulative tokens)
    pairs = 0
    for rid, segments in chain.items():
        for s in segments:
            seen = at_link.setdefault(s["chain"], (rid, s["cumulative_tokens"]))
            if seen[1] != s["cumulative_tokens"]:
                sys.exit(f"{rid} {s['path']}: {s['cumulative_tokens']} tokens, "
                         f"{seen[0]} has {seen[1]} at the same chain link")
            pairs += seen[0] != rid
    audited = 0
    for r in run(binary, "audit", *logs)["requests"]:
        if not r["partner"] or r["shared_tokens"] == 0:
            continue
        mine, theirs = chain[r["id"]], chain[r["partner"]]
        ends = [i for i, s in enumerate(mine) if s["cumulative_tokens"] == r["shared_tokens"]]
        if not ends or ends[-1] >= len(theirs) or mine[ends[-1]]["chain"] != theirs[ends[-1]]["chain"]:
            sys.exit(f"{r['id']}: audit shares {r['shared_tokens']} tokens with {r['partner']}, "
                     "which is no common chain link in chain's counts")
        audited += 1
    if pairs == 0 or audited == 0:
        sys.exit(f"{' '.join(logs)}: no shared prefix to compare: the test checks nothing")
    print(f"{len(chain)} requests: {pairs} shared links at equal positions, "
          f"{audited} audit partners on chain links")


if __name__ == "__main__":
    main()
