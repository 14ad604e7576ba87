"""A rebuilt dataset folder trains on its own rows, not on `datasets`' cached copy of a same-named folder.

`datasets` keys the Arrow cache of a local folder by the folder's name and card, not its content:
without train.prepare_data's force_redownload, the second folder below loaded the first one's rows
(seen in the Qwen3.5 recipe test, which trained on a stale `edge-trajectories` from another test).
"""
import json
from pathlib import Path

from builders.edge_dataset import build_dataset
from train.prepare_data import load_rows

ROOT = Path(__file__).resolve().parents[1]


def _folder(out: Path, task: dict, n: int) -> Path:
    trajectories = [{"id": f"{task['id']}-{k}", "shape": task["shape"], "query": task["query"], "register": "plain",
                     "platforms": task["platforms"], "domain": task["domain"], "messages": [],
                     "n_calls": len(task["program"]), "task": {**task, "id": f"{task['id']}-{k}"}} for k in range(n)]
    build_dataset(trajectories, [], out)
    return out


def test_same_named_folders_load_their_own_rows(tmp_path):
    lines = (ROOT / "train" / "data" / "smoke_tasks.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[2])
    a = load_rows(str(_folder(tmp_path / "a" / "edge-trajectories", first, 40)), "rl", "train")
    b = load_rows(str(_folder(tmp_path / "b" / "edge-trajectories", second, 40)), "rl", "train")
    assert a["id"] and all(i.startswith(first["id"] + "-") for i in a["id"])
    assert b["id"] and all(i.startswith(second["id"] + "-") for i in b["id"]), b["id"][:3]
