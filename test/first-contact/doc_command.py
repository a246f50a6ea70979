#!/usr/bin/env python3
"""Prints the shell command of a Markdown file's ```sh blocks that starts with PREFIX: its continuation lines joined,
its trailing comment dropped; a command equal to PREFIX before one that only starts with it, and with CONTAINS, one that
also holds that text. Exits 1 naming the file and what was looked for when no such command is there, so that a test
built on the docs fails when they drift.   doc_command.py FILE PREFIX [CONTAINS]
With --every before FILE: prints every command holding CONTAINS (PREFIX ignored), one per line, in the page's order."""
import re
import sys

every = sys.argv[1] == "--every"
args = sys.argv[2:] if every else sys.argv[1:]
path, prefix = args[0], args[1]
contains = args[2] if len(args) > 2 else ""
commands, block, pending = [], False, ""
with open(path, encoding="utf-8") as f:
    for line in f:
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence:
            block = not block and fence.group(1) in ("sh", "bash", "shell")
            pending = ""
            continue
        if not block:
            continue
        text = re.sub(r"\s+#\s.*$", "", line.rstrip("\n")).rstrip()
        if text.lstrip().startswith("#"):
            continue
        if text.endswith("\\"):
            pending += text[:-1].rstrip() + " "
            continue
        command = (pending + text.strip()).strip()
        pending = ""
        if command:
            commands.append(command)
if every:
    print("\n".join(c for c in commands if contains in c))
    sys.exit(0)
matching = [c for c in commands if c.startswith(prefix) and contains in c]
if matching:
    print(prefix if prefix in matching else matching[0])
    sys.exit(0)
sys.exit(f"{path} has no shell command starting with {prefix!r}" + (f" holding {contains!r}" if contains else "")
         + "; its commands are:\n  " + "\n  ".join(commands))
