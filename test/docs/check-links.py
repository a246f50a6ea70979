#!/usr/bin/env python3
"""Every relative link of README.md and docs/ resolves: the file exists, and an anchor names a heading of it.

Anchors follow GitHub's rule: the heading's text in lower case, its punctuation dropped (hyphens and underscores
kept), spaces as hyphens, a repeated heading suffixed -1, -2, ... External links (http, https, mailto) are not
fetched: the tests touch no network.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r'(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|!\[[^\]]*\]\(([^)\s]+)\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')


def slug(text):
    text = re.sub(r'<[^>]+>', '', text)                     # inline HTML
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)    # links keep their text
    text = text.replace('`', '').strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        fenced = False
        for line in path.read_text(encoding='utf-8').splitlines():
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f'{base}-{n}')
                seen[base] = n + 1
        for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', path.read_text(encoding='utf-8')):
            found.add(m.group(1))
        cache[path] = found
    return cache[path]


def links(path):
    fenced = False
    for number, line in enumerate(path.read_text(encoding='utf-8').splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        stripped = re.sub(r'`[^`]*`', '', line)   # code spans hold no links
        for m in LINK.finditer(stripped):
            yield number, m.group(1) or m.group(2)


def main():
    files = [ROOT / 'README.md'] + sorted((ROOT / 'docs').rglob('*.md'))
    problems = []
    checked = 0
    for path in files:
        for number, target in links(path):
            if re.match(r'^[a-z]+:', target):
                continue
            checked += 1
            file_part, _, anchor = target.partition('#')
            destination = path if not file_part else (path.parent / file_part).resolve()
            where = f'{path.relative_to(ROOT)}:{number}'
            if not destination.exists():
                problems.append(f'{where}: {target}: no such file')
            elif anchor and destination.suffix == '.md' and anchor not in anchors(destination):
                problems.append(f'{where}: {target}: no heading #{anchor} in {destination.relative_to(ROOT)}')
    for p in problems:
        print(p)
    print(f'links: {checked} relative links in {len(files)} files, {len(problems)} broken')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
