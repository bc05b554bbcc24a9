#!/usr/bin/env python3
"""Builds testdata/entities.jsonl from the hand-reviewed entity listings.

Run once from mention/ with the two review listings and their selections
(JSON lists of [conversation, turn_id, speaker, speaker_a, speaker_b, text]):
  python3 testdata/gen/entity_fixture.py SEL1 REVIEW1 SEL2 REVIEW2
Each candidate was read in its turn; CORR holds the reviewer's edits:
spans that are not people, places, organisations, titles or products
(breeds, yoga poses, generic "TV"/"PC", genres) and names the candidates
missed.
"""
import json, re, sys

CORR = {
    1: {56: [("del", "California")], 69: [("del", "Dancer Pose"), ("del", "Natarajasana")],
        74: [("del", "Shepherds")], 106: [("add", "Edinburgh")], 87: [("add", "spiderman")],
        71: [("add", "C++")]},
    2: {2: [("del", "TV")], 4: [("del", "Jack Russell"), ("del", "Chihuahua")],
        29: [("del", "Jack Russell"), ("del", "Chihuahua")], 59: [("del", "Labrador")],
        62: [("del", "PC")], 14: [("del", "RPGs")], 32: [("del", "RPG")], 28: [("del", "Warrior II")],
        72: [("add", "The Fireworks")]},
}

def review(path):
    out = {}
    cur = None
    for line in open(path):
        m = re.match(r"#(\d+) ", line)
        if m:
            cur = int(m.group(1))
        elif line.startswith("   G: ") and cur is not None:
            out[cur] = [x for x in line[6:].rstrip("\n").split(" | ") if x]
    return out

def main():
    a = sys.argv[1:]
    rows = []
    for n, (selp, revp) in enumerate([(a[0], a[1]), (a[2], a[3])], 1):
        sel, rev = json.load(open(selp)), review(revp)
        for i, r in enumerate(sel):
            ents = list(rev.get(i, []))
            for op, t in CORR[n].get(i, []):
                if op == "del":
                    ents.remove(t)
                else:
                    ents.append(t)
            text = r[5]
            spans, used = [], set()
            for e in ents:
                st = 0
                while True:
                    st = text.find(e, st)
                    assert st >= 0, (r, e)
                    if st not in used:
                        break
                    st += 1
                used.add(st)
                b = len(text[:st].encode())
                spans.append({"text": e, "start": b, "end": b + len(e.encode())})
            spans.sort(key=lambda s: s["start"])
            rows.append({"turn_id": r[1], "conversation": r[0], "speakers": [r[3], r[4]],
                         "text": text, "entities": spans})
    with open("testdata/entities.jsonl", "w") as f:
        for o in rows:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    print(len(rows), "turns", sum(len(o["entities"]) for o in rows), "entities", file=sys.stderr)

main()
