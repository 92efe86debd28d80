#!/usr/bin/env python3
"""Checks the user documentation (README.md, docs/*.md):

1. every code block preceded by `<!-- PATH -->` is the file PATH verbatim, and
   every block preceded by `<!-- PATH#NAME -->` is the region of PATH between
   the lines `// [doc:NAME]` and `// [/doc:NAME]` (with the region's common
   indentation removed): the examples the pages show are the files CI
   compiles and runs (examples/, built against the install by
   scripts/test_install.sh and by `spack test run strata`);
2. every relative link to a file of the repository points at a file that exists;
3. the pages read as a reference, not a journal: no dated headings, no commit
   hashes, no "reverted" / "not kept" stories.

    scripts/check_docs.py [REPOSITORY_ROOT]

Prints one line per problem and "docs: N pages, M quoted examples checked";
exit 1 when a problem was found.
"""
import os
import re
import sys
import textwrap

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
pages = ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
problems = []
quoted = 0
BENCHMARKS = os.path.join(root, "docs", "benchmarks")

QUOTE = re.compile(r"<!-- ([^ #>]+)(?:#([A-Za-z0-9_]+))? -->\n```[a-z]*\n(.*?)```\n", re.S)
LINK = re.compile(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)")
DATED_HEADING = re.compile(r"^#+ .*\b20\d\d-\d\d-\d\d\b", re.M)
# A hexadecimal word of 7 to 40 characters with a digit and a letter: a commit.
# (A 64-digit sha256 is a checksum, not a commit.)
HASH = re.compile(r"(?<![0-9a-zA-Z_/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9a-zA-Z_])")
JOURNAL = re.compile(r"\b(reverted|not kept|tried and|was tried)\b", re.I)


def region(text, name):
    begin, end = "// [doc:%s]\n" % name, "// [/doc:%s]" % name
    lines, inside, found = [], False, False
    for line in text.splitlines(True):
        if line.strip() == begin.strip():
            inside, found = True, True
        elif line.strip() == end:
            inside = False
        elif inside:
            lines.append(line)
    return textwrap.dedent("".join(lines)) if found else None


for page in pages:
    path = os.path.join(root, page)
    text = open(path).read()
    for m in QUOTE.finditer(text):
        source, name, block = m.group(1), m.group(2), m.group(3)
        quoted += 1
        src = os.path.join(root, source)
        if not os.path.isfile(src):
            problems.append("%s: quotes %s, which does not exist" % (page, source))
            continue
        want = open(src).read() if name is None else region(open(src).read(), name)
        if want is None:
            problems.append("%s: %s has no region [doc:%s]" % (page, source, name))
        elif want != block:
            problems.append("%s: the block quoting %s%s differs from the file: copy it again"
                            % (page, source, "#" + name if name else ""))
    for m in LINK.finditer(text):
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        # A release tarball leaves the benchmark JSON out (.gitattributes).
        if target.startswith(BENCHMARKS) and not os.path.isdir(BENCHMARKS):
            continue
        if not os.path.exists(target):
            problems.append("%s: link to %s, which does not exist" % (page, m.group(1)))
    # Only prose and headings are read for journal marks: code blocks may print anything.
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for m in DATED_HEADING.finditer(prose):
        problems.append("%s: a dated heading: %r" % (page, m.group(0)[:80]))
    for m in HASH.finditer(prose):
        problems.append("%s: a commit hash in the text: %s" % (page, m.group(0)))
    for m in JOURNAL.finditer(prose):
        problems.append("%s: a journal passage (%r)" % (page, m.group(0)))

for p in problems:
    print(p)
print("docs: %d pages, %d quoted examples checked%s"
      % (len(pages), quoted, ", %d problems" % len(problems) if problems else ""))
sys.exit(1 if problems else 0)
