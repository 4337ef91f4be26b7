#!/usr/bin/env python3
"""diag-coverage.py [--list]: is every message tilec can print shown in docs/diagnostics.md?

Reads the format strings of the calls that print a diagnostic in src/*.c and grammar/* (error,
warn, note, usage_error, run_usage, and isa.c's fail, whose text becomes an error about an
opcode; not explain_note, whose lines --explain prints and command.md and copy.md show) and
looks, for each one, for a line of docs/diagnostics.md that holds its fixed text: every piece
between two conversions (%s, %d, ...) of three or more characters, in order, in one line or one
paragraph (a message wrapped in prose counts), so a table row that writes `N` or `NAME` for a
conversion counts. A call whose format is not a string literal is listed as `dynamic` and not
checked (its text is made elsewhere, e.g. the syntax errors and the image check's messages); a
format chosen with `?:` between literals counts as each of them.

Prints `PASS diag-doc/FILE:LINE` or `FAIL diag-doc/FILE:LINE: "FORMAT" is not in
docs/diagnostics.md` for each message and exits 1 when one is missing. --list prints every format
with its place, and the dynamic calls, and exits 0. Run from anywhere; the paths are the
repository's."""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CALLS = re.compile(r"(?<![A-Za-z0-9_])(error|warn|note|usage_error|run_usage|fail)\s*\(")
# the argument before the format: error(LOC, fmt), warn(W, LOC, fmt), note(LOC, fmt), fail(why, len, fmt)
SKIP = {"error": 1, "warn": 2, "note": 1, "usage_error": 0, "run_usage": 0, "fail": 2}
CONV = re.compile(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp%]")


def c_string(text, i):
    """The C string literal starting at text[i] == '"': (value, index after it)."""
    out = []
    i += 1
    while text[i] != '"':
        if text[i] == "\\":
            nxt = text[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}.get(nxt, nxt))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out), i + 1


def skip_space(text, i):
    while True:
        while i < len(text) and text[i] in " \t\n":
            i += 1
        if text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif text.startswith("//", i):
            i = text.index("\n", i)
        else:
            return i


def skip_arg(text, i):
    """Index of the ',' or ')' that ends the argument starting at i."""
    depth = 0
    while True:
        c = text[i]
        if c == '"':
            _, i = c_string(text, i)
            continue
        if c == "'":
            i = text.index("'", i + 2) + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1


def code_only(text):
    """text with the insides of comments, strings and character constants blanked (same length)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def formats(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for m in CALLS.finditer(code_only(text)):
        name = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        # a definition or prototype (the name at the start of its line, or after a type) is no call
        if before.strip() == "" and re.match(r"\s*(?:\w+\s*)?\(\s*(?:const\s+)?(?:char|Loc|Warn)\b",
                                              text[m.end() - 1:]):
            continue
        if re.search(r"\b(?:void|int|static|bool)\s*$", before):
            continue
        i = m.end()
        try:
            for _ in range(SKIP[name]):
                i = skip_arg(text, skip_space(text, i)) + 1
            i = skip_space(text, i)
            end = skip_arg(text, i)
            # the format: one literal (adjacent literals joined), or each literal of a choice
            # (c ? "a" : "b"); none: a format made elsewhere
            found = False
            while i < end:
                if text[i] != '"':
                    i += 1
                    continue
                parts = []
                while text[i] == '"':
                    s, i = c_string(text, i)
                    parts.append(s)
                    i = skip_space(text, i)
                found = True
                yield path, line, "".join(parts)
            if not found:
                yield path, line, None
        except (IndexError, ValueError):
            yield path, line, None


def pieces(fmt):
    out = [p for p in CONV.split(fmt.replace("%%", "%")) if len(p.strip()) >= 3]
    return [p.strip() for p in out]


def found(fmt, doc_lines):
    ps = pieces(fmt)
    if not ps:
        return True
    for line in doc_lines:
        at = 0
        for p in ps:
            j = line.find(p, at)
            if j < 0:
                break
            at = j + len(p)
        else:
            return True
    return False


def main():
    os.chdir(ROOT)
    files = sorted(glob.glob("src/*.c")) + sorted(glob.glob("grammar/*.re")) + sorted(glob.glob("grammar/*.y"))
    doc = open("docs/diagnostics.md", encoding="utf-8").read()
    # the doc writes a backslash in a table cell as \\ and a | as \|
    # and each paragraph as one line, so that a message wrapped in prose counts too
    doc_lines = [l.replace("\\|", "|") for l in doc.splitlines()]
    doc_lines += [" ".join(p.split()) for p in doc.replace("\\|", "|").split("\n\n")]
    listing = "--list" in sys.argv[1:]
    failed = 0
    for path, line, fmt in (f for p in files for f in formats(p)):
        where = "%s:%d" % (path, line)
        if fmt is None:
            if listing:
                print("dynamic %s" % where)
            continue
        if listing:
            print("%s %r" % (where, fmt))
            continue
        if found(fmt, doc_lines):
            print("PASS diag-doc/%s" % where)
        else:
            print('FAIL diag-doc/%s: "%s" is not in docs/diagnostics.md' % (where, fmt))
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
