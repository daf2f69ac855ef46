#!/usr/bin/env python3
"""Put the tables `run.sh` generated into the study pages, or check that the pages still show them.

    tables.py fill  TABLES_DIR PAGE.md...   replace every marked block by the file it names
    tables.py check TABLES_DIR PAGE.md...   exit 1, with a diff, when a marked block differs from its file

A marked block in a page is

    <!-- table: dynamics-iid-targets.md -->
    | ... the table, exactly as `sgdsim targets` / `sgdsim table` wrote it ... |
    <!-- end table -->

and names a file of TABLES_DIR (OUTDIR/tables of `scenarios/studies/run.sh STUDY OUTDIR`). `check` fails on a
block whose file is missing too, unless --present-only (for an OUTDIR that holds only some studies' tables).
The comments do not show when the page is rendered. Exit codes: 0 in agreement (or filled), 1 a difference,
2 bad input (an unclosed block, a missing page).
"""
import difflib
import os
import re
import sys

BEGIN = re.compile(r"^<!-- table: ([A-Za-z0-9_.+-]+\.md) -->$")
END = "<!-- end table -->"


def fail(message):
    print("tables.py: " + message, file=sys.stderr)
    sys.exit(2)


def blocks(path, lines):
    """(name, first content line, end line) of every marked block, 0-based, end exclusive."""
    found, start, name = [], None, None
    for number, line in enumerate(lines):
        match = BEGIN.match(line.rstrip("\n"))
        if match:
            if name is not None:
                fail(f"{path}:{number + 1}: a table block opens inside the one of line {start}")
            name, start = match.group(1), number + 1
        elif line.rstrip("\n") == END:
            if name is None:
                fail(f"{path}:{number + 1}: '{END}' without an opening '<!-- table: NAME.md -->'")
            found.append((name, start, number))
            name = None
    if name is not None:
        fail(f"{path}:{start}: the block of {name} is never closed by '{END}'")
    return found


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as file:
            return file.readlines()
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def main():
    args = sys.argv[1:]
    present_only = "--present-only" in args
    args = [a for a in args if a != "--present-only"]
    if len(args) < 3 or args[0] not in ("fill", "check"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    command, tables, pages = args[0], args[1], args[2:]
    if not os.path.isdir(tables):
        fail(f"{tables}: no such folder")
    differ = checked = 0
    for page in pages:
        lines = read_lines(page)
        out, last = [], 0
        for name, start, end in blocks(page, lines):
            out += lines[last:start]
            last = end
            source = os.path.join(tables, name)
            if not os.path.exists(source):
                if command == "check" and not present_only:
                    print(f"tables.py: {page}:{start}: {name} is not in {tables}", file=sys.stderr)
                    differ += 1
                out += lines[start:end]
                continue
            want = read_lines(source)
            checked += 1
            if command == "fill":
                out += want
            elif want != lines[start:end]:
                differ += 1
                sys.stderr.writelines(difflib.unified_diff(lines[start:end], want, f"{page} (block at line {start})",
                                                           source))
        out += lines[last:]
        if command == "fill" and out != lines:
            with open(page + ".tmp", "w", encoding="utf-8") as file:  # never a half-written page
                file.writelines(out)
            os.replace(page + ".tmp", page)
    if command == "check":
        print(f"tables.py: {checked} tables checked, {differ} differ", file=sys.stderr)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
