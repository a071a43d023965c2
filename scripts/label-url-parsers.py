#!/usr/bin/env python3
"""Label the URL corpus with each parser's reading of the host.

Reads the URLs of corpora/real-world/url-wpt.jsonl (with their bases) and
every fetch URL written in cases/, asks `rbv oracle url` (the WHATWG parser
through node, Python's urllib.parse and urllib3, libcurl's URL API, Go's
net/url) how each reads them, and writes

  corpora/real-world/url-parsers.jsonl             one record per URL
  corpora/real-world/url-parsers.provenance.json   parser versions, date, counts

The labels are data: tests read them and need none of the parsers. Re-run
after adding fetch cases or upgrading a parser:

  scripts/label-url-parsers.py            # needs node, python3 (+urllib3), libcurl, go
"""

import datetime
import json
import pathlib
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "corpora/real-world/url-parsers.jsonl"
PROVENANCE = ROOT / "corpora/real-world/url-parsers.provenance.json"


def wpt_requests():
    for line in (ROOT / "corpora/real-world/url-wpt.jsonl").read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            yield record["url"], record["base"], "wpt"


def urls_in(node):
    """Every string under a `url` key, anywhere in a YAML document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "url" and isinstance(value, str) and "${" not in value:
                yield value
            else:
                yield from urls_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from urls_in(item)


def case_requests():
    for path in sorted((ROOT / "cases").rglob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            for url in urls_in(document):
                yield url, None, "rbv-cases"


def main():
    seen, requests = set(), []
    for url, base, source in list(wpt_requests()) + list(case_requests()):
        if (url, base) not in seen:
            seen.add((url, base))
            requests.append({"url": url, "base": base, "source": source})
    text = "".join(json.dumps({"url": r["url"], "base": r["base"]}) + "\n" for r in requests)
    command = ["cargo", "run", "-q", "-p", "rbv", "--", "oracle", "url", "--require-all"]
    done = subprocess.run(command, input=text, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit("rbv oracle url failed:\n" + done.stderr)
    lines = done.stdout.splitlines()
    header, answers = json.loads(lines[0]), [json.loads(l) for l in lines[1:]]
    assert len(answers) == len(requests), (len(answers), len(requests))
    with OUT.open("w") as out:
        for request, answer in zip(requests, answers):
            assert answer["url"] == request["url"]
            record = {
                "url": request["url"],
                "base": request["base"],
                "source": request["source"],
                "readings": {
                    name: {k: r[k] for k in ("ok", "host", "addr")}
                    for name, r in answer["readings"].items()
                },
                "loopback": answer["loopback"],
                "all_loopback": answer["all_loopback"],
                "not_loopback": answer["not_loopback"],
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    counts = {}
    for r in requests:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    PROVENANCE.write_text(json.dumps({
        "generated": datetime.date.today().isoformat(),
        "script": "scripts/label-url-parsers.py",
        "oracle": "rbv oracle url (harness/src/oracle/url.rs, readers in harness/src/oracle/readers/)",
        "parsers": header["parsers"],
        "records": counts,
    }, indent=2) + "\n")
    print(f"wrote {len(requests)} records to {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
