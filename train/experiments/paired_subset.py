"""Copy two run dirs restricted to the task ids finished in BOTH (paired before/after comparison).

    PYTHONPATH=. .venv/bin/python train/experiments/paired_subset.py BEFORE_RUN AFTER_RUN OUT_PREFIX
writes OUT_PREFIX-before/ and OUT_PREFIX-after/ (run.json, tasks.json, episodes.jsonl) for `kopa bench score`.
"""
import json
import shutil
import sys
from pathlib import Path


def ids(run):
    return [json.loads(l)["task_id"] for l in open(Path(run) / "episodes.jsonl", encoding="utf-8") if l.strip()]


def main():
    before, after, prefix = sys.argv[1:4]
    common = set(ids(before)) & set(ids(after))
    for tag, src in (("before", before), ("after", after)):
        out = Path(f"{prefix}-{tag}")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        shutil.copy(Path(src) / "run.json", out / "run.json")
        tasks = [t for t in json.load(open(Path(src) / "tasks.json", encoding="utf-8")) if t["id"] in common]
        (out / "tasks.json").write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
        with open(out / "episodes.jsonl", "w", encoding="utf-8") as f:
            for l in open(Path(src) / "episodes.jsonl", encoding="utf-8"):
                if l.strip() and json.loads(l)["task_id"] in common:
                    f.write(l)
    print(sorted(common))


if __name__ == "__main__":
    main()
