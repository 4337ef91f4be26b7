#!/usr/bin/env python3
"""Generates docs/diagnostics.md from the spec*.py entries by compiling each wrong and fixed program.
Run from the repository root: cat tools/diagnostics-doc/spec?.py tools/diagnostics-doc/order.py > /tmp/all.py && python3 tools/diagnostics-doc/gen.py /tmp/all.py docs/diagnostics.md"""
import difflib, os, re, subprocess, sys, tempfile, json

TILEC = os.environ.get("TILEC", "build/tilec")
EX = "examples/"

def strip_comments(text):
    lines = text.splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(l for l in lines if not l.strip().startswith("//")) + "\n"

def ex(name):
    return strip_comments(open(EX + name + ".tile").read())

TINY = """kernel k(A: f32[32], Out: f32[32]) launch(grid = 1, block = 32)
{
    let tid = thread_idx.x;
    Out[tid] = A[tid];
}
"""

SMALL = """kernel k(A: f32[32], Out: f32[32]) launch(grid = 1, block = 32)
{
    let tid = thread_idx.x;
    shared slot: u32[1];
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&slot[0], 32);
    cta_sync;
    tmem t: f32[32, 1] at slot[0] layout default;
    local r: f32[32, 1] layout S[32 : 1@laneid];
    view mine = r.view(1, layout = default);
    mine[0] = A[tid];
    apply tcgen05.st.sync.aligned.32x32b.x1.b32(t, r) scope warp(0);
    tcgen05.wait::st.sync.aligned;
    apply tcgen05.ld.sync.aligned.32x32b.x1.b32(r, t) scope warp(0);
    tcgen05.wait::ld.sync.aligned;
    Out[tid] = mine[0];
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 32);
}
"""

BASES = {"tiny": TINY, "small": SMALL}

def base(name):
    if name in BASES:
        return BASES[name]
    return ex(name)

def subst(text, pairs, what):
    for a, b in pairs:
        n = text.count(a)
        if n != 1:
            raise SystemExit("%s: %r occurs %d times" % (what, a, n))
        text = text.replace(a, b)
    return text

def run(name, text, args):
    d = tempfile.mkdtemp()
    open(os.path.join(d, name + ".tile"), "w").write(text)
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.run([TILEC] + args + [name + ".tile", "-o", name + ".cu"], cwd=d, env=env,
                       capture_output=True, text=True, errors="replace")
    return p.returncode, p.stderr

ENTRIES = []
INDEX = {}
def E(id, title, explain, prog, wrong=(), fix=(), fixtext="", args="", kind="error", fixargs=None, nofix=False):
    ENTRIES.append(dict(id=id, title=title, explain=explain, prog=prog, wrong=list(wrong), fix=list(fix),
                        fixtext=fixtext, args=args, kind=kind, fixargs=fixargs, nofix=nofix, topic=TOPIC[0]))

TOPIC = [None]
TOPICS = []
def T(name, intro=""):
    TOPIC[0] = name
    TOPICS.append((name, intro))

def emit(out, coverage):
    cur = None
    for e in ENTRIES:
        pass
    for tname, intro in TOPICS:
        out.append("## %s\n" % tname)
        if intro:
            out.append(intro.strip() + "\n")
        for e in [x for x in ENTRIES if x["topic"] == tname]:
            prog = base(e["prog"]) if e["prog"] in BASES or os.path.exists(EX + e["prog"] + ".tile") else e["prog"]
            wrong = subst(prog, e["wrong"], e["id"])
            marker = "// example: %s %s%s" % (e["id"], e["kind"], (" " + e["args"]) if e["args"] else "")
            wrong_text = marker + "\n" + wrong
            args = e["args"].split() if e["args"] else []
            rc, err = run(e["id"], wrong_text, args)
            want_rc = 1 if e["kind"] == "error" else 0
            if rc != want_rc or not err:
                sys.exit("%s: wrong program: rc %d, stderr:\n%s" % (e["id"], rc, err))
            coverage.append(err)
            out.append('<a id="%s"></a>\n\n### %s\n' % (e["id"], e["title"]))
            INDEX.setdefault(tname, []).append((e["id"], e["title"]))
            out.append(e["explain"].strip() + "\n")
            out.append("```tile\n" + wrong_text + "```\n")
            out.append("```text\n" + err + "```\n")
            if e["nofix"]:
                if e["fixtext"]:
                    out.append(e["fixtext"].strip() + "\n")
                continue
            fixed = subst(wrong, e["fix"], e["id"] + " fix")
            fname = e["id"] + "_fixed"
            fixed_text = "// example: %s\n" % fname + fixed
            fargs = (e["fixargs"] if e["fixargs"] is not None else "").split()
            rc2, err2 = run(fname, fixed_text, fargs)
            if rc2 != 0 or err2:
                sys.exit("%s: fixed program: rc %d, stderr:\n%s" % (e["id"], rc2, err2))
            diff = list(difflib.unified_diff(wrong.splitlines(), fixed.splitlines(), lineterm="", n=1))[2:]
            diff = [l for l in diff if not l.startswith("@@")]
            out.append(("Fix: " + e["fixtext"].strip() if e["fixtext"] else "Fix:") + "\n")
            out.append("```diff\n" + "\n".join(diff) + "\n```\n")
            out.append("<details><summary>The fixed program</summary>\n")
            out.append("```tile\n" + fixed_text + "```\n")
            out.append("</details>\n")

if __name__ == "__main__":
    exec(open(sys.argv[1]).read())
    out, cov = [], []
    emit(out, cov)
    idx = []
    for tname, _ in TOPICS:
        anchor = re.sub(r"[^a-z0-9 _-]", "", tname.lower()).replace(" ", "-")
        idx.append("**[%s](#%s)**\n" % (tname, anchor))
        idx.extend("- [%s](#%s)" % (t, i) for i, t in INDEX.get(tname, []))
        idx.append("")
    head = open(os.path.join(os.path.dirname(sys.argv[0]), "head.md")).read()
    tail = open(os.path.join(os.path.dirname(sys.argv[0]), "tail.md")).read()
    open(sys.argv[2], "w").write(head.replace("@INDEX@", "\n".join(idx)).replace("@COUNT@", str(len(ENTRIES))) + "\n" + "\n".join(out) + "\n" + tail)
    json.dump(cov, open(sys.argv[2] + ".cov.json", "w"))
    print("entries:", len(ENTRIES))
