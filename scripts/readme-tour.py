#!/usr/bin/env python3
"""Keeps README.md's CLI tour true: every ```console block between the markers

    <!-- tour:begin -->  ...  <!-- tour:end -->

holds `$ corral ...` command lines, each followed by what that command prints now (its standard
output; a command that wants its standard error shown says `2>&1`). The script runs each command
with bash from the repository root, with the chosen corral binary first on PATH, and rewrites the
blocks (idempotent: a second run changes nothing).

  scripts/readme-tour.py [--corral PATH] [--check] [README]

--check rewrites nothing: it prints a diff and exits 1 when README.md differs from what the commands
print (the CTest test readme_tour), and fails when a command takes longer than --max-seconds (2 by
default) so that the tour stays quick. `make readme` rewrites the README with a fresh build.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import time

BEGIN = "<!-- tour:begin -->"
END = "<!-- tour:end -->"


def run(command, root, corral, max_seconds):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(corral)) + os.pathsep + env.get("PATH", "")
    env["LC_ALL"] = "C.UTF-8"
    start = time.monotonic()
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    seconds = time.monotonic() - start
    # A command shown in the README may fail on purpose (validate of a broken file exits 2); its
    # output is what matters. A pipe into head may end the producer early: that is fine too.
    out = proc.stdout.decode("utf-8")
    # Run provenance names the Corral version, which changes with every commit (git describe); the
    # README shows <corral-version> in its place, as the end-to-end goldens do.
    version = subprocess.run([os.path.abspath(corral), "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False).stdout.decode("utf-8")
    if version.startswith("corral "):
        out = out.replace(version[len("corral "):].strip(), "<corral-version>")
    if seconds > max_seconds:
        sys.exit(f"readme-tour: {command!r} took {seconds:.1f} s (at most {max_seconds} s)")
    if not out and proc.returncode != 0:
        sys.exit(f"readme-tour: {command!r} printed nothing and exited {proc.returncode}:\n"
                 + proc.stderr.decode("utf-8"))
    return out


def render(text, root, corral, max_seconds):
    begin = text.find(BEGIN)
    end = text.find(END)
    if begin < 0 or end < begin:
        sys.exit(f"readme-tour: README has no {BEGIN} ... {END} section")
    head, body, tail = text[:begin], text[begin:end], text[end:]
    block = re.compile(r"```console\n(.*?)```\n", re.S)

    def regenerate(match):
        commands = [line[2:] for line in match.group(1).splitlines() if line.startswith("$ ")]
        if not commands:
            sys.exit("readme-tour: a console block in the tour has no `$ ` command line")
        lines = []
        for command in commands:
            lines.append("$ " + command + "\n")
            out = run(command, root, corral, max_seconds)
            if out and not out.endswith("\n"):
                out += "\n"
            lines.append(out)
        return "```console\n" + "".join(lines) + "```\n"

    return head + block.sub(regenerate, body) + tail


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme", nargs="?", default=os.path.join(root, "README.md"))
    parser.add_argument("--corral", default=os.path.join(root, "build/release/tools/corral/corral"))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--max-seconds", type=float, default=2.0)
    args = parser.parse_args()
    if not os.access(args.corral, os.X_OK):
        sys.exit(f"readme-tour: no corral binary at {args.corral} (build it, or pass --corral)")
    with open(args.readme, encoding="utf-8") as f:
        text = f.read()
    new = render(text, root, args.corral, args.max_seconds)
    if args.check:
        if new != text:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), "README.md", "commands' output"))
            print("README.md's CLI tour differs from what the commands print now; "
                  "run `make readme` and commit the result.", file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"readme-tour: rewrote {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
