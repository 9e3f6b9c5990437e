#!/usr/bin/env python3
"""Runs docs/tutorial.md: every ```sh block, in order, in one bash session (so `cd` and `export`
carry over), with `set -e` (a failing command fails the test). An ```output block right after a
```sh block must equal what that block printed (stdout and stderr), up to the digits of decimal
numbers and byte counts, which vary from run to run; ```text blocks are illustrations only.

    tutorial_test.py REPO BUILD_DIR

The tutorial starts at the repository root with build/tools and scripts/; the test gives it a
root whose build/tools is BUILD_DIR/tools, so any build folder is tested. Everything it writes
goes under one temporary folder, removed at the end.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def blocks(markdown):
    """Yields (line, sh text, expected output or None) for every ```sh block."""
    found = list(re.finditer(r"^```(\w*)\n(.*?)^```\n", markdown, re.S | re.M))
    for i, m in enumerate(found):
        if m.group(1) != "sh":
            continue
        expected = None
        if i + 1 < len(found) and found[i + 1].group(1) == "output":
            between = markdown[m.end():found[i + 1].start()]
            if between.strip() == "":
                expected = found[i + 1].group(2)
        yield markdown.count("\n", 0, m.start()) + 1, m.group(2), expected


def normalise(text):
    text = re.sub(r"\d+\.\d+", "#", text)
    return re.sub(r"\d+ bytes", "# bytes", text)


def main():
    repo, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(repo, "docs", "tutorial.md"), encoding="utf-8") as f:
        parts = list(blocks(f.read()))
    if not parts:
        sys.exit("no ```sh blocks in docs/tutorial.md")
    work = tempfile.mkdtemp(prefix="egopt-tutorial-test-")
    try:
        root = os.path.join(work, "root")
        os.makedirs(os.path.join(root, "build"))
        os.makedirs(os.path.join(work, "tmp"))
        os.symlink(os.path.join(build, "tools"), os.path.join(root, "build", "tools"))
        os.symlink(os.path.join(repo, "scripts"), os.path.join(root, "scripts"))
        os.symlink(os.path.join(repo, "rules"), os.path.join(root, "rules"))
        script = ["set -e"]
        for i, (line, text, _) in enumerate(parts):
            out = os.path.join(work, "block%d.out" % i)
            script.append('echo "docs/tutorial.md:%d" > %s/current' % (line, work))
            script.append("{\n%s\n} > %s 2>&1" % (text, out))
        env = dict(os.environ, TMPDIR=os.path.join(work, "tmp"))
        run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=root, env=env)
        failed = False
        if run.returncode != 0:
            with open(os.path.join(work, "current"), encoding="utf-8") as f:
                where = f.read().strip()
            print("FAIL: the block at %s exited with %d" % (where, run.returncode))
            failed = True
        for i, (line, text, expected) in enumerate(parts):
            path = os.path.join(work, "block%d.out" % i)
            if not os.path.exists(path):
                break
            with open(path, encoding="utf-8", errors="replace") as f:
                got = f.read()
            if expected is not None and normalise(got) != normalise(expected):
                print("FAIL: the output of the block at docs/tutorial.md:%d differs" % line)
                print("--- expected\n%s--- got\n%s" % (expected, got))
                failed = True
            elif failed and run.returncode != 0 and not os.path.exists(
                    os.path.join(work, "block%d.out" % (i + 1))):
                print("--- its output\n%s" % got)
        if failed:
            sys.exit(1)
        print("OK: %d blocks of docs/tutorial.md ran" % len(parts))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
