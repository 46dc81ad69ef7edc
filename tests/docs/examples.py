#!/usr/bin/env python3
"""Checks (or rewrites) the examples in README.md and man/cachewise.1 against
the binary's real output.

An example is a block whose first line is `$ cachewise ARGS`:
  README.md        a ``` fence
  man/cachewise.1  a .nf ... .fi block (roff escapes: \\- \\e \\(aq \\(dq)
The rest of the block is the expected standard output, where
  a line "..." (any indentation) stands for any number of lines, and
  a line ending in "..." stands for a line that starts with what precedes it.
The command runs from the source root with the arguments split like a shell's
(no pipes, no redirections).

  python3 tests/docs/examples.py BINARY            check; exit 1 on a difference
  python3 tests/docs/examples.py BINARY --update   rewrite the blocks in place
"""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["README.md", "man/cachewise.1"]
ELLIPSIS = "..."


def roff_unescape(line):
    line = re.sub(r"\\\[u([0-9A-F]{4,5})\]", lambda m: chr(int(m.group(1), 16)), line)
    return (line.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")
            .replace("\\(dq", '"').replace("\\&", ""))


def roff_escape(line):
    line = line.replace("\\", "\\e").replace("-", "\\-")
    line = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in line)
    return "\\&" + line if line.startswith((".", "'")) else line


def find_blocks(path, lines):
    """(start, end, command, expected) for each example; start is the command's line."""
    blocks = []
    man = path.endswith(".1")
    i = 0
    while i < len(lines):
        opening = lines[i].strip()
        is_open = opening == ".nf" if man else opening.startswith("```")
        if is_open and i + 1 < len(lines):
            command = roff_unescape(lines[i + 1]) if man else lines[i + 1]
            close = ".fi" if man else "```"
            end = i + 1
            while end < len(lines) and lines[end].strip() != close:
                end += 1
            if command.startswith("$ cachewise ") and end < len(lines):
                body = lines[i + 2:end]
                if man:
                    body = [roff_unescape(b) for b in body]
                blocks.append((i + 1, end, command[2:], body))
            i = end + 1
            continue
        i += 1
    return blocks


def line_matches(want, got):
    if want.endswith(ELLIPSIS) and want.strip() != ELLIPSIS:
        return got.startswith(want[:-len(ELLIPSIS)])
    return want == got


def matches(want, got):
    """Does `got` match the pattern lines `want` ("..." skips lines)?"""
    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            result = j == len(got)
        elif want[i].strip() == ELLIPSIS:
            result = any(at(i + 1, k) for k in range(j, len(got) + 1))
        else:
            result = j < len(got) and line_matches(want[i], got[j]) and at(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return at(0, 0)


def anchor_key(line):
    """The text a line starts with up to its first digit: its label."""
    m = re.match(r"[^0-9]*", line)
    return m.group(0).rstrip() if m else line


def regenerate(want, got):
    """New expected lines: the same shape (elisions kept), filled from `got`."""
    if not any(w.strip() == ELLIPSIS for w in want):
        return list(got)
    segments, current = [], []
    for w in want:
        if w.strip() == ELLIPSIS:
            segments.append(current)
            segments.append(w)
            current = []
        else:
            current.append(w)
    segments.append(current)
    out, pos = [], 0
    for index, seg in enumerate(segments):
        if isinstance(seg, str):
            out.append(seg)  # the elision line as it was
            continue
        if not seg:
            continue
        if index == 0:
            start = 0
        elif index == len(segments) - 1:
            start = max(pos, len(got) - len(seg))
        else:
            start = next((k for k in range(pos, len(got)) if got[k] == seg[0]), None)
            if start is None:
                key = anchor_key(seg[0])
                start = next((k for k in range(pos, len(got)) if anchor_key(got[k]) == key), None)
            if start is None:
                raise ValueError(f"cannot place the lines from {seg[0]!r} in the new output")
        for offset, w in enumerate(seg):
            if start + offset >= len(got):
                break
            g = got[start + offset]
            if w.endswith(ELLIPSIS):
                keep = len(w) - len(ELLIPSIS)
                g = g[:keep] + ELLIPSIS if len(g) > keep else g
            out.append(g)
        pos = start + len(seg)
    return out


def run(binary, command):
    args = shlex.split(command)[1:]
    done = subprocess.run([binary] + args, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, CACHEWISE_RULES="", NO_COLOR="1"))
    return done.stdout.splitlines()


def check_rule_severities(binary):
    """The man page's RULE IDS give each rule the severity the binary reports
    (its SARIF driver rules: error, warning, note for info)."""
    man = open(os.path.join(ROOT, "man/cachewise.1"), encoding="utf-8").read()
    documented = dict(re.findall(r'^\.B (CW\d+) \S+ \\\(em (\w+)$', man, re.M))
    done = subprocess.run([binary, "lint", "samples/request-template.json", "--format", "sarif"],
                          cwd=ROOT, capture_output=True, text=True)
    import json
    rules = json.loads(done.stdout)["runs"][0]["tool"]["driver"]["rules"]
    named = {"note": "info"}
    actual = {r["id"]: named.get(r["defaultConfiguration"]["level"],
                                 r["defaultConfiguration"]["level"]) for r in rules}
    problems = [f"man/cachewise.1: RULE IDS: {rid} is {documented.get(rid, 'missing')}, "
                f"the binary says {level}"
                for rid, level in sorted(actual.items()) if documented.get(rid) != level]
    for p in problems:
        print(p)
    return len(problems)


def check_roff_quotes():
    """JSON in a font macro's arguments loses its quotes (roff takes a leading
    quote as argument quoting): such text is written inline with \\(dq."""
    problems = []
    with open(os.path.join(ROOT, "man/cachewise.1"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if re.match(r'^\.(B|I|BR|RB|BI|IB|IR|RI) ', line) and re.search(r'[{\[]"', line):
                problems.append(f"man/cachewise.1:{number}: JSON in a macro argument loses its "
                                f"quotes; write it inline: \\fB{{\\(dqkey\\(dq}}\\fR")
    for p in problems:
        print(p)
    return len(problems)


def check_groff():
    """The man page renders without groff warnings (skipped without groff)."""
    try:
        done = subprocess.run(["groff", "-man", "-ww", "-z", "man/cachewise.1"], cwd=ROOT,
                              capture_output=True, text=True)
    except FileNotFoundError:
        print("groff not found: the man page's rendering is not checked")
        return 0
    warnings = [w for w in done.stderr.splitlines() if w.strip()]
    for w in warnings:
        print(w)
    return len(warnings)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    update = "--update" in sys.argv[2:]
    files = [a for a in sys.argv[2:] if a != "--update"] or FILES
    failed = 0
    checked = 0
    for name in files:
        path = os.path.join(ROOT, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        man = name.endswith(".1")
        changed = False
        for start, end, command, want in reversed(find_blocks(name, lines)):
            checked += 1
            got = run(binary, command)
            if matches(want, got):
                continue
            if update:
                try:
                    new = regenerate(want, got)
                except ValueError as e:
                    print(f"{name}:{start + 1}: {command}: {e}; edit the block by hand")
                    failed += 1
                    continue
                lines[start + 1:end] = [roff_escape(n) for n in new] if man else new
                changed = True
                print(f"{name}:{start + 1}: updated: {command}")
                continue
            failed += 1
            print(f"{name}:{start + 1}: the example differs from `{command}`:")
            print("--- expected (... skips lines)")
            print("\n".join(want))
            print("+++ actual")
            print("\n".join(got))
        if changed:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
    severities = check_rule_severities(binary)
    failed += severities + check_roff_quotes() + check_groff()
    print(f"{checked} examples checked, {failed} {'left to fix' if update else 'differ'}"
          f" (rule severities: {severities} wrong)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
