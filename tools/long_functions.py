#!/usr/bin/env python3
"""Lists the functions longer than LIMIT lines; exit 1 when there is one.

    tools/long_functions.py [--limit N] [FOLDER...]   (default: 80; src cuda bench)

A function is a body whose opening brace stands on a line of its own (the
project's clang-format style for functions) after a line that is not a
statement, a control keyword or a type. Braces inside string and character
literals and comments do not count. Lines are those between the braces.
"""
import argparse
import pathlib
import re
import sys

NOT_A_FUNCTION = re.compile(
    r"^\s*(if|for|while|switch|else|do|struct|class|namespace|enum|union|try|catch)\b")
LITERALS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])+\'|//.*$')


def body_end(lines, start):
    depth = 0
    for k in range(start, len(lines)):
        code = LITERALS.sub("", lines[k])
        depth += code.count("{") - code.count("}")
        if depth == 0:
            return k
    return len(lines) - 1


def long_functions(path, limit):
    lines = path.read_text(errors="replace").split("\n")
    for i, line in enumerate(lines):
        if line.strip() != "{" or i == 0:
            continue
        j = i - 1
        while j > 0 and not lines[j].strip():
            j -= 1
        head = lines[j]
        if NOT_A_FUNCTION.match(head) or head.rstrip().endswith((";", ",", "=")):
            continue
        length = body_end(lines, i) - i - 1
        if length > limit:
            h = j
            while h > 0 and "(" not in lines[h]:
                h -= 1
            yield length, f"{path}:{h + 1}", lines[h].strip()[:70]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("folders", nargs="*", default=["src", "cuda", "bench"])
    args = parser.parse_args()
    found = []
    for folder in args.folders:
        for path in sorted(pathlib.Path(folder).rglob("*")):
            if path.suffix in (".cpp", ".hpp", ".cu", ".h"):
                found.extend(long_functions(path, args.limit))
    for length, where, name in sorted(found, reverse=True):
        print(f"{length:5d}  {where}  {name}")
    print(f"{len(found)} function(s) over {args.limit} lines in {' '.join(args.folders)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
