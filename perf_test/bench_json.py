"""What check_bench_json.py and check_execute_bench_json.py share: failing
with the checker's name, a timing object's shape, loading a file of a known
schema with its environment, and the command line (FILE, or --run BENCH FILE
[bench args...], which runs the benchmark with --quick first)."""
import json
import os
import subprocess
import sys

# Every benchmark JSON records these about the run (bench_support.hpp).
ENV_KEYS = ["backend", "concurrency", "kokkos_version", "kokkos_kernels_version", "date", "host",
            "cpu", "command", "repetitions", "load_average_start"]


def fail(message):
    print("%s: %s" % (os.path.splitext(os.path.basename(sys.argv[0]))[0], message))
    sys.exit(1)


def check_timing(where, t):
    if not isinstance(t, dict) or not isinstance(t.get("median_s"), (int, float)) or t["median_s"] < 0:
        fail("%s: no median time" % where)
    if len(t.get("seconds", [])) != t.get("repetitions"):
        fail("%s: repetitions and seconds disagree" % where)


def load(path, schema, env_keys=()):
    """The file's data (raises on malformed JSON) once its schema and
    environment are there; returns (data, environment)."""
    with open(path) as f:
        data = json.load(f)
    if data.get("schema") != schema:
        fail("unknown schema %r" % data.get("schema"))
    env = data.get("environment", {})
    for k in ENV_KEYS + list(env_keys):
        if k not in env:
            fail("environment lacks %r" % k)
    return data, env


def main(argv, doc, check):
    if len(argv) >= 3 and argv[0] == "--run":
        exe, path, extra = argv[1], argv[2], argv[3:]
        rc = subprocess.call([exe, "--quick", "--json", path] + extra)
        if rc != 0:
            fail("%s exited with %d" % (exe, rc))
        check(path)
    elif len(argv) == 1:
        check(argv[0])
    else:
        print(doc)
        sys.exit(2)
