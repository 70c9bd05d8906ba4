#!/usr/bin/env python3
"""The justified baselines (conformance/tests/baselines/<target>.json) hold
every non-PASS verdict of the published reports (results/<target>/json/
index.json) with its reason, and nothing stale.

    baselines-justified.py [--source DIR]     check; exit 1 on any problem
    baselines-justified.py --self-test        the check finds what it must

For every published target with a baseline: each case whose published
verdict is neither PASS nor SKIPPED has an entry whose verdict (or one of its
"also") is the published one, with a written justification; each entry's
verdict (or "also") is the published verdict, else the entry is stale.  Every
published server target of a real peer must have a baseline.  Each problem is
printed as "target case: published X, baseline Y".  No server is run.
"""
import copy
import json
import os
import sys
import tempfile

VERDICTS = {"PASS", "NON-STRICT", "UNSUPPORTED", "INFO", "FAIL", "ERROR", "TIMEOUT",
            "SKIPPED", "FLAKY"}
# published targets of real peers (not this project's mock): a baseline each
REAL_PEERS = ["hydra-4.0.2", "hydra-4.0.2-2nodes", "slurm-22.05", "slurm-22.05-2nodes",
              "newcomer", "newcomer1", "newcomer3"]


def baseline_name(target):
    """The baseline file of a published target: one for both drivers of our library."""
    if target.startswith("client-libpmiclient-"):
        return "client-libpmiclient"
    return target


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check(results, baselines):
    """Problems, as lines: published targets against their baselines."""
    problems = []
    targets = sorted(t for t in os.listdir(results)
                     if os.path.isfile(os.path.join(results, t, "json", "index.json")))
    for peer in REAL_PEERS:
        if peer in targets and not os.path.isfile(os.path.join(baselines, peer + ".json")):
            problems.append("%s: published, but no baseline %s.json" % (peer, peer))
    shared = {}
    for t in targets:
        shared.setdefault(baseline_name(t), []).append(t)
    for t in targets:
        bpath = os.path.join(baselines, baseline_name(t) + ".json")
        if not os.path.isfile(bpath):
            continue
        pub = load(os.path.join(results, t, "json", "index.json"))["cases"]
        try:
            ents = load(bpath)["cases"]
        except (ValueError, KeyError) as e:
            problems.append("%s: baseline %s unreadable: %s" % (t, bpath, e))
            continue
        for case, ent in ents.items():
            v = ent.get("verdict")
            also = ent.get("also", [])
            for a in [v] + list(also):
                if a not in VERDICTS:
                    problems.append("%s %s: baseline holds an unknown verdict %r" % (t, case, a))
            if v != "PASS" and not (ent.get("justification") or "").strip():
                problems.append("%s %s: baseline %s without a justification" % (t, case, v))
            pv = pub.get(case, {}).get("verdict")
            if pv is None:
                problems.append("%s %s: published none, baseline %s (stale)" % (t, case, v))
            elif pv == "SKIPPED" and v != "SKIPPED" and len(shared[baseline_name(t)]) > 1:
                continue  # not run by this driver; another target of the baseline grades it
            elif pv != v and pv not in also:
                problems.append("%s %s: published %s, baseline %s%s" % (
                    t, case, pv, v, "" if not also else " (also " + ", ".join(also) + ")"))
        for case, res in pub.items():
            pv = res["verdict"]
            if pv not in ("PASS", "SKIPPED") and case not in ents:
                problems.append("%s %s: published %s, baseline none" % (t, case, pv))
    return problems


def self_test(source):
    """A stale, a missing and an unjustified entry are each found."""
    results = os.path.join(source, "results")
    baselines = os.path.join(source, "conformance", "tests", "baselines")
    target = "hydra-4.0.2"
    pub = load(os.path.join(results, target, "json", "index.json"))["cases"]
    failing = [c for c, r in pub.items() if r["verdict"] not in ("PASS", "SKIPPED")]
    passing = [c for c, r in pub.items() if r["verdict"] == "PASS"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in os.listdir(baselines):
            with open(os.path.join(baselines, name), encoding="utf-8") as f:
                text = f.read()
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        b = load(os.path.join(tmp, target + ".json"))
        good = copy.deepcopy(b)
        del b["cases"][failing[0]]
        b["cases"][failing[1]]["justification"] = " "
        b["cases"][passing[0]] = {"verdict": "FAIL", "justification": "stale"}
        with open(os.path.join(tmp, target + ".json"), "w", encoding="utf-8") as f:
            json.dump(b, f)
        got = check(results, tmp)
        want = ["%s %s: published %s, baseline none" % (target, failing[0], pub[failing[0]]["verdict"]),
                "%s %s: baseline %s without a justification"
                % (target, failing[1], good["cases"][failing[1]]["verdict"]),
                "%s %s: published PASS, baseline FAIL" % (target, passing[0])]
        os.remove(os.path.join(tmp, target + ".json"))
        want.append("%s: published, but no baseline %s.json" % (target, target))
        got += check(results, tmp)
    missing = [w for w in want if w not in got]
    for w in missing:
        print("self-test: not reported: " + w)
    return 1 if missing else 0


def main(argv):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    args = argv[1:]
    if args[:1] == ["--source"] and len(args) >= 2:
        source, args = args[1], args[2:]
    if args == ["--self-test"]:
        return self_test(source)
    if args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = check(os.path.join(source, "results"),
                     os.path.join(source, "conformance", "tests", "baselines"))
    for p in problems:
        print(p)
    if problems:
        print("%d problems: each non-PASS published verdict needs a justified baseline entry "
              "(conformance/README.md, \"tests/baselines/\")" % len(problems))
        return 1
    print("every published non-PASS verdict has its justified baseline entry")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
