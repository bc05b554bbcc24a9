#!/usr/bin/env python3
"""Builds testdata/temporal_spans.jsonl from hand-reviewed candidate lists.

Run once from mention/: python3 testdata/gen/temporal_fixture.py REVIEW1 REVIEW2
REVIEW files are the candidate listings that were read turn by turn; every
span kept was checked by hand, and CORRECTIONS holds the reviewer's edits
(spans the candidates missed, wrong kinds, wrong values). LoCoMo itself is
not needed; the review files carry the turn text.
"""
import json, re, sys, datetime

CORR = {
    1: {65: [("add", "August", "date", "2023-08")],
        111: [("set", "this weekend", "relative", "2024-01-06/2024-01-07")],
        146: [("add", "last week", "relative", "2023-W50")],
        182: [("add", "years", "duration", "PXY")],
        269: [("add", "hours", "duration", "PTXH")],
        272: [("set", "two weekends later", "relative", "")],
        315: [("add", "tomorrow", "relative", "2023-06-20")]},
    2: {47: [("add", "the last half hour", "duration", "PT30M")],
        56: [("del", "a few years", "", ""), ("add", "a few years back", "relative", "")],
        76: [("del", "a few years", "", ""), ("add", "a few years back", "relative", "")],
        62: [("set", "Wednesday", "relative", "2023-09-13")],
        75: [("set", "Saturday", "relative", "2023-11-04")]},
}

def parse(path):
    turns, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"#(\d+) (\S+) (\S+) \[(.*)\]$", line)
        if m:
            cur = {"i": int(m.group(1)), "conversation": m.group(2), "turn_id": m.group(3),
                   "date_text": m.group(4), "text": None, "spans": []}
            turns.append(cur)
        elif line.startswith("    G: "):
            t, k, v = line[7:].split(" | ")
            cur["spans"].append([t, k, v])
        elif line.startswith("    P: "):
            pass
        elif cur is not None and cur["text"] is None:
            cur["text"] = line[2:]
        elif cur is not None:
            cur["text"] += "\n" + line  # multi-line turn text
    return turns

def main():
    out = []
    for n, path in enumerate(sys.argv[1:3], 1):
        for t in parse(path):
            spans = t["spans"]
            for op, txt, kind, val in CORR[n].get(t["i"], []):
                if op == "add":
                    spans.append([txt, kind, val])
                elif op == "del":
                    spans = [s for s in spans if s[0] != txt]
                else:
                    spans = [[txt, kind, val] if s[0] == txt else s for s in spans]
            d = datetime.datetime.strptime(t["date_text"], "%I:%M %p on %d %B, %Y")
            res, pos = [], 0
            text = t["text"]
            for s in sorted(spans, key=lambda s: text.find(s[0])):
                st = text.find(s[0], pos)
                if st < 0:
                    st = text.find(s[0])
                assert st >= 0, (t, s)
                en = st + len(s[0].encode()) if False else st + len(s[0])
                res.append({"text": s[0], "kind": s[1], "value": s[2],
                            "start": len(text[:st].encode()), "end": len(text[:en].encode())})
                pos = en
            out.append({"turn_id": t["turn_id"], "conversation": t["conversation"],
                        "session_date": d.strftime("%Y-%m-%d"), "text": text, "spans": res})
    with open("testdata/temporal_spans.jsonl", "w") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    print(len(out), "turns", sum(len(o["spans"]) for o in out), "spans", file=sys.stderr)

main()
