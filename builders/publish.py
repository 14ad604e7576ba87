"""Push a built dataset folder to the Hugging Face Hub as one commit (huggingface_hub).

`plan_operations` is separate from `publish` so the exact commit can be inspected and tested
without a network; the token is read from the environment (HF_TOKEN) or the huggingface_hub
login and is never printed or written.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from huggingface_hub import CommitOperationAdd, HfApi

log = logging.getLogger(__name__)


def plan_operations(folder: str | Path) -> list[CommitOperationAdd]:
    folder = Path(folder)
    if not (folder / "README.md").exists():
        raise FileNotFoundError(f"{folder} has no README.md card; build it first with `kopa data build`")
    ops = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):  # no caches, no dotfiles
            ops.append(CommitOperationAdd(path_in_repo=str(p.relative_to(folder)), path_or_fileobj=str(p)))
    return ops


def publish(folder: str | Path, repo_id: str, *, token: str | None = None, private: bool = False,
            revision: str | None = None, api: HfApi | None = None) -> str:
    """Create the dataset repo if needed and commit every file of the folder; returns the commit URL."""
    if "/" not in repo_id:
        raise ValueError(f"repo id {repo_id!r} must look like ORG/NAME (e.g. kopa/kopa-bench)")
    folder = Path(folder)
    info_path = folder / "build_info.json"
    version = json.loads(info_path.read_text())["version"] if info_path.exists() else "unversioned"
    api = api or HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    ops = plan_operations(folder)
    commit = api.create_commit(repo_id=repo_id, repo_type="dataset", operations=ops, revision=revision,
                               commit_message=f"KOPA dataset {folder.name} v{version}")
    log.info("pushed %d files to %s", len(ops), repo_id)
    return getattr(commit, "commit_url", str(commit))
