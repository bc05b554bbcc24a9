#!/usr/bin/env python3
"""Builds testdata/gold_cat2.jsonl: every LoCoMo category-2 answer with the
value it denotes under the package's conventions (see doc.go), computed by
this independent reader and then checked by hand against the printed table
(OVERRIDE holds the hand edits). Run once from mention/:
  python3 testdata/gen/gold_fixture.py ../../shared/data/locomo/locomo10.json
"""
import json, re, sys, datetime as dt

MONTHS = {m: i + 1 for i, m in enumerate("january february march april may june july august september october november december".split())}
WD = {w: i for i, w in enumerate("monday tuesday wednesday thursday friday saturday sunday".split())}  # python weekday()
NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a": 1}
UNIT = {"day": "D", "week": "W", "month": "M", "year": "Y"}
OVERRIDE = {}

def norm(s):
    s = s.strip().lower().replace("`", "").replace("janury", "january").replace("januarty", "january")
    s = re.sub(r"(\d)([a-z])", r"\1 \2", s)
    s = re.sub(r"(\d) (st|nd|rd|th)\b", r"\1", s)
    s = re.sub(r"([a-z])\.(\d)", r"\1 \2", s)
    s = s.rstrip(".").strip()
    s = re.sub(r"^(around|approximately|on|in|since)\s+", "", s)
    return re.sub(r"\s+", " ", s.replace(",", " , ")).replace(" , ", ", ").strip()

MN = r"(january|february|march|april|may|june|july|august|september|october|november|december)"

def date(s):
    m = re.fullmatch(r"(\d{1,2}) %s,? (\d{4})" % MN, s)
    if m: return dt.date(int(m[3]), MONTHS[m[2]], int(m[1]))
    m = re.fullmatch(r"%s (\d{1,2}),? (\d{4})" % MN, s)
    if m: return dt.date(int(m[3]), MONTHS[m[1]], int(m[2]))
    return None

def week(d):
    y, w, _ = d.isocalendar()
    return "%d-W%02d" % (y, w)

def day(d): return d.isoformat()

def weekend_before(d, n=1):
    s = d - dt.timedelta(days=2)
    while s.weekday() != 5: s -= dt.timedelta(days=1)
    s -= dt.timedelta(days=7 * (n - 1))
    return "%s/%s" % (day(s), day(s + dt.timedelta(days=1)))

def weekend_after(d):
    s = d + dt.timedelta(days=1)
    while s.weekday() != 5: s += dt.timedelta(days=1)
    return "%s/%s" % (day(s), day(s + dt.timedelta(days=1)))

def weekend_of(d):
    s = d + dt.timedelta(days=5 - d.weekday())
    return "%s/%s" % (day(s), day(s + dt.timedelta(days=1)))

def value(ans):
    s = norm(ans)
    s = re.sub(r"^(the|a|on the|on a) ", "", s)
    d = date(s)
    if d: return day(d)
    m = re.fullmatch(r"%s,? (\d{4})" % MN, s)
    if m: return "%s-%02d" % (m[2], MONTHS[m[1]])
    m = re.fullmatch(r"(?:early|end of|late|mid) %s,? (\d{4})" % MN, s)
    if m: return "%s-%02d" % (m[2], MONTHS[m[1]])
    m = re.fullmatch(r"(\d{4})", s)
    if m: return s
    m = re.fullmatch(r"(\d{1,2}) %s" % MN, s)
    if m: return "XXXX-%02d-%02d" % (MONTHS[m[2]], int(m[1]))
    m = re.fullmatch(MN, s)
    if m: return "XXXX-%02d" % MONTHS[m[1]]
    m = re.fullmatch(r"(?:the )?(summer|winter|spring|fall) (?:of )?(\d{4})", s)
    if m: return "%s-%s" % (m[2], {"summer": "SU", "winter": "WI", "spring": "SP", "fall": "FA"}[m[1]])
    m = re.fullmatch(r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday) (before|after) (.*)", s)
    if m and date(m[3]):
        d, w = date(m[3]), WD[m[1]]
        step = -1 if m[2] == "before" else 1
        x = d + dt.timedelta(days=step)
        while x.weekday() != w: x += dt.timedelta(days=step)
        return day(x)
    m = re.fullmatch(r"(?:last )?(?:(one|two|three) )?(weeks?|weekends?) (before|after|of) (.*)", s)
    if m and date(m[4]):
        d, n = date(m[4]), NUM.get(m[1] or "one")
        if m[2].startswith("weekend"):
            return {"before": weekend_before(d, n), "after": weekend_after(d), "of": weekend_of(d)}[m[3]]
        off = {"before": -7 * n, "after": 7 * n, "of": 0}[m[3]]
        return week(d + dt.timedelta(days=off))
    m = re.fullmatch(r"(?:a )?few days before (.*)", s)
    if m and date(m[1]):
        d = date(m[1])
        return "%s/%s" % (day(d - dt.timedelta(days=4)), day(d - dt.timedelta(days=2)))
    m = re.fullmatch(r"(first|last) (week|weekend) of %s,? (\d{4})" % MN, s)
    if m:
        y, mo = int(m[4]), MONTHS[m[3]]
        first = dt.date(y, mo, 1)
        last = (dt.date(y + (mo == 12), mo % 12 + 1, 1) - dt.timedelta(days=1))
        if m[2] == "week":
            lo = first if m[1] == "first" else last - dt.timedelta(days=6)
            return "%s/%s" % (day(lo), day(lo + dt.timedelta(days=6)))
        s0 = first
        if m[1] == "first":
            while s0.weekday() != 5: s0 += dt.timedelta(days=1)
        else:
            s0 = last
            while s0.weekday() != 5: s0 -= dt.timedelta(days=1)
        return "%s/%s" % (day(s0), day(s0 + dt.timedelta(days=1)))
    m = re.fullmatch(r"between %s (\d{1,2}) and (\d{1,2}),? (\d{4})" % MN, s)
    if m: return "%s-%02d-%02d/%s-%02d-%02d" % (m[4], MONTHS[m[1]], int(m[2]), m[4], MONTHS[m[1]], int(m[3]))
    m = re.fullmatch(r"between (\d{1,2}) %s and (\d{1,2}) %s,? (\d{4})" % (MN, MN), s)
    if m: return "%s-%02d-%02d/%s-%02d-%02d" % (m[5], MONTHS[m[2]], int(m[1]), m[5], MONTHS[m[4]], int(m[3]))
    m = re.fullmatch(r"%s (\d{1,2}) ?- ?(\d{1,2}),? (\d{4})" % MN, s)
    if m: return "%s-%02d-%02d/%s-%02d-%02d" % (m[4], MONTHS[m[1]], int(m[2]), m[4], MONTHS[m[1]], int(m[3]))
    m = re.fullmatch(r"night of %s (\d{1,2}) to (\d{1,2}),? (\d{4})" % MN, s)
    if m: return "%s-%02d-%02d/%s-%02d-%02d" % (m[4], MONTHS[m[1]], int(m[2]), m[4], MONTHS[m[1]], int(m[3]))
    m = re.fullmatch(r"week of %s (\d{1,2}) to (\d{1,2})" % MN, s)
    if m: return "XXXX-%02d-%02d/XXXX-%02d-%02d" % (MONTHS[m[1]], int(m[2]), MONTHS[m[1]], int(m[3]))
    m = re.fullmatch(r"(?:nearly |about |almost )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (day|week|month|year)s?", s)
    if m:
        n = int(m[1]) if m[1].isdigit() else NUM[m[1]]
        return "P%d%s" % (n, UNIT[m[2]])
    m = re.fullmatch(r"few days before %s,? (\d{4})" % MN, s)
    if m:  # a few days before a month: the month before (doc.go)
        mo = MONTHS[m[1]] - 1 or 12
        y = int(m[2]) - (MONTHS[m[1]] == 1)
        return "%d-%02d" % (y, mo)
    return ""

def main():
    data = json.load(open(sys.argv[1]))
    out = []
    for s in data:
        for q in s["qa"]:
            if q["category"] != 2:
                continue
            a = str(q["answer"])
            v = OVERRIDE.get(a, value(a))
            out.append({"conversation": s["sample_id"], "question": q["question"], "answer": a, "value": v})
    with open("testdata/gold_cat2.jsonl", "w") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    for o in out:
        print("%-45s %s" % (o["answer"][:45], o["value"]))
    print(len(out), "answers", sum(1 for o in out if o["value"]), "with a value", file=sys.stderr)

main()
