#!/usr/bin/env python3
"""Repairs what check-comment-prose.py flags, in place: a one-word comment line that clang-format
split off a line is joined with the lines it belongs to, and a split `// ---- x` divider is joined
and padded to 100 columns. Prints each file it changed. Review the diff: a comment whose structure
(a table, a list) was broken needs a human.

Usage: fix-comment-prose.py FILE...
"""
import re
import sys

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from importlib import import_module  # noqa: E402

check = import_module('check-comment-prose')
COMMENT = re.compile(r'^(\s*//\s*)(\S.*)$')
LIMIT = 100


def prefix_and_text(line):
    m = COMMENT.match(line)
    return (m.group(1), m.group(2).rstrip()) if m else (None, None)


def wrap(prefix, words):
    out, cur = [], prefix
    for w in words:
        if cur != prefix and len(cur) + 1 + len(w) > LIMIT:
            out.append(cur)
            cur = prefix + w
        else:
            cur = cur + w if cur == prefix else cur + ' ' + w
    out.append(cur)
    return out


def fix_once(lines, n):
    """Repairs the flagged line at index n; returns the new lines."""
    i = n
    pw, word = prefix_and_text(lines[i])
    pp, ptext = prefix_and_text(lines[i - 1])
    if ' ' in word and not check.DIVIDER.match(word):
        # a list item's short tail: joined with the deeper-indented continuation below
        j = i + 1
        np_, _ = prefix_and_text(lines[j])
        k = j
        while k + 1 < len(lines):
            q, t = prefix_and_text(lines[k + 1])
            if q != np_ or not t:
                break
            k += 1
        words = word.split() + ' '.join(prefix_and_text(lines[x])[1] for x in range(j, k + 1)).split()
        return lines[:i] + wrap(np_, words) + lines[k + 1:]
    if check.DIVIDER.match(word):
        joined = pp + ptext + ' '
        joined += word[0] * max(3, LIMIT - len(joined))
        return lines[:i - 1] + [joined] + lines[i + 1:]
    j = i + 1
    np_, ntext = prefix_and_text(lines[j]) if j < len(lines) else (None, None)
    if np_ is not None and ntext and (len(np_) > len(pw) or np_ == pw):
        k = j
        while k + 1 < len(lines):
            q, t = prefix_and_text(lines[k + 1])
            if q != np_ or not t:
                break
            k += 1
        words = [word] + ' '.join(prefix_and_text(lines[x])[1] for x in range(j, k + 1)).split()
        return lines[:i] + wrap(np_, words) + lines[k + 1:]
    pwords = ptext.split()
    if len(pwords) < 2:
        return None
    return lines[:i - 1] + [pp + ' '.join(pwords[:-1]), pw + pwords[-1] + ' ' + word] + lines[i + 1:]


def fix(path):
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    changed = False
    for _ in range(200):
        found = None
        for f_ in check.check_lines(path, lines):
            found = f_
            break
        if found is None:
            break
        new = fix_once(lines, found - 1)
        if new is None or new == lines:
            break
        lines, changed = new, True
    if changed:
        with open(path, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
        print(path)


if __name__ == '__main__':
    for p in sys.argv[1:]:
        fix(p)
