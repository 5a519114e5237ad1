#!/usr/bin/env python3
"""The shape of src/, checked: what CONTRIBUTING.md promises a reader.

    test/structure.py [SRC]

  1. No header of ours is included by every C file (each subsystem has its
     own; none is a catch-all).
  2. No circle between files: module M (M.c with M.h) uses module N when
     M.c or M.h includes N.h; the graph of uses has no cycle.
  3. No C function is over 120 lines (from its opening brace to its
     closing one, as pgindent lays them out: both in column 0).

One line per finding; the last line is "N passed, M failed" (one check
each).  Exits non-zero when a check fails.
"""
import os
import re
import sys

MAX_LINES = 120
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "src")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(ext):
    out = []
    for d, _, names in os.walk(SRC):
        for n in names:
            if n.endswith(ext):
                out.append(os.path.relpath(os.path.join(d, n), SRC))
    return sorted(out)


def module(path):
    """src/foo.c and src/foo.h are module 'foo'; plugins are 'plugins/x'."""
    return os.path.splitext(path)[0]


def includes(path):
    """Our headers that path includes, as paths relative to SRC."""
    text = open(os.path.join(SRC, path), encoding="utf-8").read()
    out = []
    for name in INCLUDE.findall(text):
        for cand in (os.path.normpath(os.path.join(os.path.dirname(path), name)), os.path.normpath(name)):
            if os.path.exists(os.path.join(SRC, cand)):
                out.append(cand)
                break
    return out


def check_catch_all(cfiles):
    """Findings: headers every C file includes (directly)."""
    if len(cfiles) < 2:
        return []
    every = None
    for c in cfiles:
        inc = set(includes(c))
        every = inc if every is None else every & inc
    return ["%s is included by every C file" % h for h in sorted(every or ())]


def check_circles(cfiles, hfiles):
    """Findings: cycles in the module graph."""
    uses = {}
    for f in cfiles + hfiles:
        m = module(f)
        for h in includes(f):
            n = module(h)
            if n != m:
                uses.setdefault(m, set()).add(n)
    found = []
    state = {}
    stack = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(uses.get(m, ())):
            if state.get(n) == 1:
                cyc = stack[stack.index(n):] + [n]
                found.append("circle: " + " -> ".join(cyc))
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(uses):
        if m not in state:
            visit(m)
    return found


FUNC_START = re.compile(r"^\{\s*$")
FUNC_END = re.compile(r"^\}")


def check_lengths(cfiles):
    """Findings: functions longer than MAX_LINES."""
    found = []
    for c in cfiles:
        lines = open(os.path.join(SRC, c), encoding="utf-8").read().split("\n")
        start = None
        for i, line in enumerate(lines):
            if start is None and FUNC_START.match(line):
                start = i
            elif start is not None and FUNC_END.match(line):
                n = i - start + 1
                if n > MAX_LINES:
                    # the function's name: the last identifier before "(" above the brace
                    name = "?"
                    for j in range(start - 1, max(start - 8, -1), -1):
                        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\(", lines[j])
                        if m:
                            name = m.group(1)
                            break
                    found.append("%s:%d: %s is %d lines (at most %d)" % (c, start + 1, name, n, MAX_LINES))
                start = None
    return found


def main():
    cfiles, hfiles = files(".c"), files(".h")
    checks = [("no catch-all header", check_catch_all(cfiles)),
              ("no circle between files", check_circles(cfiles, hfiles)),
              ("no function over %d lines" % MAX_LINES, check_lengths(cfiles))]
    passed = failed = 0
    for name, findings in checks:
        if findings:
            failed += 1
            print("FAILED %s:" % name)
            for f in findings:
                print("  " + f)
        else:
            passed += 1
            print("ok %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
