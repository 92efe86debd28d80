#!/usr/bin/env python3
"""The bad-input matrix: every row of the table in docs/errors.md is run
through `strata` and must give exactly the documented exit code, error kind
and message (first stderr line), end that line with a Fix: hint, and write
nothing to stdout. The table is the test's only data, so doc and test cannot
drift.

  test_error_matrix.py STRATA docs/errors.md           check every row
  test_error_matrix.py STRATA docs/errors.md --update  rewrite the exit, kind
                                                       and message columns
                                                       from what strata does

Cells (see docs/errors.md for the legend): input is a code span with C-style
escapes (\\n \\t \\r \\xHH \\\\), or `<missing>` (no such file), `<directory>`,
`<chain-cycle N>` (chain 0 -> 1 -> ... -> N-1 closed by N-1 -> 0); command is
the argument list with FILE for the input's path (leading NAME=VALUE words set
environment variables); in a message FILE is that
path, `<bytes>` any decimal number (machine-dependent, e.g. the physical
memory) and `...` any text."""

import os
import re
import subprocess
import sys
import tempfile

STRATA, DOC = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv[3:]
TMP = tempfile.mkdtemp(prefix="strata_errors_")
BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"


def unescape(text):
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "x":
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\"}[n]
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)


def code(cell):
    cell = cell.strip()
    assert cell.startswith("`") and cell.endswith("`"), "cell must be a code span: %r" % cell
    return cell[1:-1].replace("\\|", "|")


def cells(line):
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip() for p in parts]


def materialise(number, spec):
    """The input file of a row; returns its path."""
    path = os.path.join(TMP, "row%02d.txt" % number)
    if spec == "<missing>":
        return os.path.join(TMP, "no-such-file.txt")
    if spec == "<directory>":
        os.makedirs(path, exist_ok=True)
        return path
    m = re.fullmatch(r"<chain-cycle (\d+)>", spec)
    if m:
        n = int(m.group(1))
        data = ("# chain of %d waves closed into a cycle\n%d %d\n" % (n, n, n) +
                "".join("%d %d\n" % (w, w + 1) for w in range(n - 1)) + "%d 0\n" % (n - 1)).encode()
    else:
        data = unescape(spec)
    with open(path, "wb") as f:
        f.write(data)
    return path


def pattern(message, path):
    parts = re.split(r"(FILE|<bytes>|\.\.\.)", message)
    regex = "".join({"FILE": re.escape(path), "<bytes>": r"[0-9]+", "...": r".*"}.get(p, re.escape(p))
                    for p in parts)
    return re.compile(regex + r"\Z", re.S)


with open(DOC) as f:
    lines = f.read().split("\n")
start, stop = lines.index(BEGIN), lines.index(END)
header = cells(lines[start + 1])
assert header[:7] == ["#", "bad input", "input", "command", "exit", "kind", "message"], header

failures, rows = [], 0
for at in range(start + 3, stop):
    row = cells(lines[at])
    if not row:
        continue
    rows += 1
    number, what, spec, command, exit_code, kind, message = row[:7]
    path = materialise(int(number), code(spec))
    args = [path if a == "FILE" else a for a in code(command).split()]
    env = None
    while args and re.fullmatch(r"[A-Z_]+=\S*", args[0]):  # leading NAME=VALUE: environment
        name, value = args.pop(0).split("=", 1)
        env = dict(env or os.environ, **{name: value})
    if "--distributed" in args and "ASAN_OPTIONS" in os.environ:
        # A single MPI process: Open MPI's unloaded components leak where no
        # LeakSanitizer suppression can match them (see unit_test/CMakeLists.txt).
        env = dict(env or os.environ, ASAN_OPTIONS=os.environ["ASAN_OPTIONS"] + ":detect_leaks=0")
    p = subprocess.run([STRATA, *args], capture_output=True, timeout=600, env=env)
    err = p.stderr.decode("utf-8", "backslashreplace")
    if "--distributed" in args and "needs a strata built with MPI" in err:
        continue  # a build without MPI (STRATA_ENABLE_MPI=OFF): the row does not apply
    # the error line (sanitizer warnings such as "==123==WARNING: ... failed
    # to allocate" may come first in the asan build)
    first = next((l for l in err.split("\n") if l.startswith("strata: ")), err.split("\n", 1)[0])
    got = first[len("strata: "):] if first.startswith("strata: ") else first
    if UPDATE:
        shown = got.replace(path, "FILE").replace("|", "\\|")
        lines[at] = "| %s | %s | %s | %s | %d | %s | `%s` |" % (
            number, what, spec, command, p.returncode, got.split(":", 1)[0], shown)
        continue

    def check(cond, detail):
        if not cond:
            failures.append("row %s (%s): %s" % (number, what, detail))
            print("FAIL row %s (%s): %s" % (number, what, detail))

    check(p.returncode == int(exit_code), "exit %d, documented %s; stderr %r" % (p.returncode, exit_code, err[:300]))
    check(p.stdout == b"", "stdout not empty: %r" % p.stdout[:200])
    check(first.startswith("strata: " + kind + ": "), "kind: %r" % first)
    check(re.search(r"Fix: \S", first) is not None, "no Fix: hint: %r" % first)
    rest = [l for l in err.split("\n") if l and not l.startswith("==") and l != first]
    check(kind == "InvalidArgument" and rest[:1] == [l for l in rest[:1] if l.startswith("usage:")]
          or not rest, "the error is not one line (or one line and the usage): %r" % rest[:3])
    check(pattern(code(message).replace("\\|", "|"), path).match(got) is not None,
          "message\n   got:        %r\n   documented: %r" % (got, code(message)))

if UPDATE:
    with open(DOC, "w") as f:
        f.write("\n".join(lines))
    print("updated %d rows of %s" % (rows, DOC))
    sys.exit(0)
assert rows > 0, "no matrix rows found"
print("%d rows, %d failures" % (rows, len(failures)))
sys.exit(1 if failures else 0)
