#!/usr/bin/env python3
"""Fails on one-word comment lines: the mark of a contract comment that clang-format re-wrapped
(a line pushed past 100 columns loses its last word to a line of its own) and of a `// ---- x ----`
divider split in two.

Usage: check-comment-prose.py FILE...

A line is flagged when it is a whole-line `//` comment holding exactly one word and the comment line
before it holds prose that does not end a sentence (a re-wrapped tail), or when it is a divider of
dashes or equals signs alone on the line after another comment (a split divider), or when a line
of at most three words sits between a list item's first line and its deeper-indented continuation
(the item's re-wrapped tail). Exempt, narrowly:
a word that is a code or data fragment (it contains `{`, `"` or `=`: an example quoted in a
comment), and a line that ends with `// prose-ok` (any other intentional one-word line).
Exit status: 0 when nothing is flagged, 1 otherwise (each finding printed as file:line: text).
"""
import re
import sys

COMMENT = re.compile(r'^\s*//(?!/)(.*)$')
DIVIDER = re.compile(r'^[-=]{3,}$')


def indent(line):
    m = re.match(r'^(\s*//\s*)', line)
    return len(m.group(1)) if m else -1


def check_lines(path, lines):
    """Yields the 1-based numbers of the flagged lines."""
    prev = None  # text of the previous whole-line comment, or None
    for n, line in enumerate(lines, 1):
        m = COMMENT.match(line)
        if not m:
            prev = None
            continue
        text = m.group(1).strip()
        if line.rstrip().endswith('// prose-ok'):
            prev = text
            continue
        words = text.split()
        # A list item's wrapped tail: a short line at the item's indent between the item's first
        # line and its continuation lines, which are indented deeper.
        nxt = lines[n] if n < len(lines) else ''
        if (prev is not None and 1 <= len(words) <= 3 and not text.endswith(':') and
                COMMENT.match(nxt) and
                indent(nxt) > indent(line) == indent(lines[n - 2]) and len(prev.split()) >= 4):
            yield n
            prev = text
            continue
        fragment = len(words) == 1 and any(c in words[0] for c in '{"=')
        if prev is not None and len(words) == 1 and len(prev.split()) >= 2 and not fragment:
            if DIVIDER.match(words[0]) or not prev.endswith(('.', ':', ';')):
                yield n
        prev = text


def check(path):
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
    except (OSError, UnicodeDecodeError) as e:
        return [f'{path}:0: cannot read: {e}']
    return [f'{path}:{n}: re-wrapped comment line: {lines[n - 1].strip()}'
            for n in check_lines(path, lines)]


def main(argv):
    findings = []
    for path in argv[1:]:
        findings.extend(check(path))
    for f in findings:
        print(f)
    if findings:
        print(f'{len(findings)} re-wrapped comment line(s); restore the prose to 100 columns '
              '(or mark an intentional one with // prose-ok)', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
