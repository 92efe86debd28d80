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
escapes (\\n \\t \\r \\xHH \\\\), or `<missing>` (no such file),
`<missing NAME>` (no such file, named NAME with C escapes), `<directory>`, `<fifo>`,
`<chain-cycle N>` (chain 0 -> 1 -> ... -> N-1 closed by N-1 -> 0), `<chain N>`,
`<sparse SIZE>` (a sparse file of SIZE NUL bytes, K/M/G suffixes, made by
truncate), `<path P>` (an existing path such as /dev/zero); command is the
argument list (shell quoting) with FILE for the input's path, optionally
preceded by NAME=VALUE (an environment variable) and ulimit-v=SIZE /
ulimit-f=SIZE (the child's RLIMIT_AS / RLIMIT_FSIZE in bytes, K/M/G
suffixes), and followed by `<FILE` (standard input read from the input
file; FILE itself then usually appears as `-`) and/or one stdout
redirection: >/dev/full, >file (a new file),
>&- (stdout closed) or >broken-pipe (a pipe whose reader is gone, SIGPIPE ignored). Rows
with ulimit-v are skipped under AddressSanitizer (ASAN_OPTIONS set), which
cannot run in a small address space; in a device build (CUDA, HIP) such a row
may instead answer Kokkos::initialize's StorageReserveFailed (exit 3), as the
GPU runtime reserves address space for the whole device. In a message FILE is the path as strata
prints it (control bytes as \\xHH), `<bytes>` any decimal number
(machine-dependent, e.g. the physical memory) and `...` any text."""

import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile

import address_space

STRATA, DOC = sys.argv[1], sys.argv[2]
DEVICE_BUILD = address_space.is_device_build(STRATA)
UPDATE = "--update" in sys.argv[3:]
TMP = tempfile.mkdtemp(prefix="strata_errors_")
BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"
# Library API a Fix: hint of the tool must not send its user to (the tool words
# those hints with its flags: --max-memory, --rank-budget, --distributed).
LIBRARY_TERMS = ("device_memory_budget_bytes", "ordinals", "distributed/", "RunOptions::",
                 "LaunchConfig::", "DeviceLimits::", "Executor::", "PlanOptions",
                 "DistributedOptions::")


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


def size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    assert m, "bad size %r" % text
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def printable(path):
    """The path as strata quotes it: control bytes and DEL as \\xHH."""
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f else c for c in path)


def materialise(number, spec):
    """The input file of a row; returns its path."""
    path = os.path.join(TMP, "row%02d.txt" % number)
    if spec == "<missing>":
        return os.path.join(TMP, "no-such-file.txt")
    m = re.fullmatch(r"<missing (.+)>", spec)
    if m:
        return os.path.join(TMP, unescape(m.group(1)).decode())
    m = re.fullmatch(r"<path (.+)>", spec)
    if m:
        return m.group(1)
    m = re.fullmatch(r"<sparse (\w+)>", spec)
    if m:
        with open(path, "wb") as f:
            f.truncate(size(m.group(1)))
        return path
    m = re.fullmatch(r"<chain (\d+)>", spec)
    if m:
        n = int(m.group(1))
        with open(path, "w") as f:
            f.write("%d %d\n" % (n, n - 1) + "".join("%d %d\n" % (w, w + 1) for w in range(n - 1)))
        return path
    if spec == "<directory>":
        os.makedirs(path, exist_ok=True)
        return path
    if spec == "<fifo>":  # a named pipe nobody writes: opening it would wait
        if not os.path.exists(path):
            os.mkfifo(path)
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
    regex = "".join({"FILE": re.escape(printable(path)), "<bytes>": r"[0-9]+", "...": r".*"}.get(p, re.escape(p))
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
    words = shlex.split(code(command))
    env, limits, stdout = dict(os.environ), [], subprocess.PIPE
    while words and re.fullmatch(r"[A-Z_]+=.*|ulimit-[vf]=\w+", words[0]):
        name, value = words.pop(0).split("=", 1)
        if name == "ulimit-v":
            limits.append((resource.RLIMIT_AS, size(value)))
        elif name == "ulimit-f":
            limits.append((resource.RLIMIT_FSIZE, size(value)))
        else:
            env[name] = value
    redirect = words.pop() if words and words[-1].startswith(">") else None
    stdin_file = "<FILE" in words
    words = [w for w in words if w != "<FILE"]
    args = [path if a == "FILE" else a for a in words]
    if "--distributed" in args and "ASAN_OPTIONS" in os.environ:
        # A single MPI process: Open MPI's unloaded components leak where no
        # LeakSanitizer suppression can match them (see unit_test/CMakeLists.txt).
        env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":detect_leaks=0"
    if any(l[0] == resource.RLIMIT_AS for l in limits) and "ASAN_OPTIONS" in os.environ:
        print("skip row %s (%s): ulimit -v under AddressSanitizer" % (number, what))
        continue
    pipe_read = pipe_write = None
    if redirect == ">/dev/full":
        stdout = open("/dev/full", "wb")
    elif redirect == ">&-":
        stdout = subprocess.DEVNULL  # replaced by a closed descriptor in the child
    elif redirect == ">file":
        stdout = open(os.path.join(TMP, "row%02d.out" % int(number)), "wb")
    elif redirect == ">broken-pipe":
        pipe_read, pipe_write = os.pipe()
        os.close(pipe_read)
        stdout = pipe_write
    else:
        assert redirect is None, "unknown redirection %r" % redirect

    def setup(limits=limits, close_stdout=redirect == ">&-"):
        for which, value in limits:
            resource.setrlimit(which, (value, value))
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if close_stdout:
            os.close(1)

    # (a directory as standard input: opened as a descriptor, as a shell's `<` does)
    stdin = ((os.open(path, os.O_RDONLY) if os.path.isdir(path) else open(path, "rb"))
             if stdin_file else subprocess.DEVNULL)
    p = subprocess.run([STRATA, *args], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                       timeout=600, env=env, preexec_fn=setup)
    if stdin_file:
        os.close(stdin) if isinstance(stdin, int) else stdin.close()
    if pipe_write is not None:
        os.close(pipe_write)
    if hasattr(stdout, "close"):
        stdout.close()
    if redirect is not None:
        p.stdout = b""  # nothing was captured; the exit code and stderr tell
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
    # A CLI user's Fix names the tool's flags, never the library's settings.
    fix = first.split("Fix:", 1)[-1]
    check(not any(term in fix for term in LIBRARY_TERMS),
          "the Fix: hint names a library setting, not a strata flag: %r" % fix)
    rest = [l for l in err.split("\n") if l and not l.startswith("==") and l != first]
    check(kind == "InvalidArgument" and rest[:1] == [l for l in rest[:1] if l.startswith("usage:")]
          or not rest, "the error is not one line (or one line and the usage): %r" % rest[:3])
    if (DEVICE_BUILD and any(l[0] == resource.RLIMIT_AS for l in limits) and
            got.startswith("StorageReserveFailed: Kokkos::initialize could not allocate")):
        # a GPU runtime reserves address space for the whole device as Kokkos
        # starts: the row's limit stops the build before its documented step
        print("row %s (%s): the device runtime could not start under the limit" % (number, what))
        continue
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
