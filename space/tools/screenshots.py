"""Take docs/screenshots/{agent,benchmark,leaderboard,edge}.png with headless chromium.

Builds small real inputs first (scripted agents scored on the fixture tasks; an EDGE graph
verified on the sandbox with a short budget), starts the Space on a free port, and drives
each tab with selenium.

    PYTHONPATH=. .venv/bin/python space/tools/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.test_space_helpers import TASKS, running_space  # noqa: E402
from tests.test_space_browser import make_driver, wait_for  # noqa: E402


def build_results(out: Path, seeds=(0, 1)) -> None:
    """scores.jsonl per scripted agent on the fixture tasks (real runs on the sandbox)."""
    from kopa_bench.client import KopaClient
    from kopa_bench.runner.backends import make_backend
    from kopa_bench.runner.agent import run_episode
    from kopa_bench.scoring import score_episode
    from kopa_bench.tasks import compute_answer, execute_program, parse_tasks

    tasks = parse_tasks(json.loads(TASKS.read_text(encoding="utf-8")))

    async def go():
        client = KopaClient("sandbox")
        golds = {t.id: await execute_program(t, client) for t in tasks}
        for name in ("oracle", "first-call", "no-tool"):
            lines = []
            for t in tasks:
                for seed in seeds:
                    backend = make_backend(name, tasks=tasks, client=client)
                    ep = await run_episode(t, backend, client, seed=seed, model=name)
                    lines.append(score_episode(t, golds[t.id], ep, compute_answer(t, golds[t.id])).model_dump_json())
            d = out / name
            d.mkdir(parents=True, exist_ok=True)
            (d / "scores.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        await client.aclose()

    asyncio.run(go())


def build_edge(out: Path) -> None:
    from edge_synth.pipeline import run_graph_and_verify
    from edge_synth.verify_config import VerifyConfig

    run_graph_and_verify(out, VerifyConfig(iterations=5, paths_per_iter=60))


def click_tab(driver, label: str) -> None:
    from selenium.webdriver.common.by import By

    for b in driver.find_elements(By.CSS_SELECTOR, "button[role='tab']"):
        if b.text.strip() == label:
            b.click()
            return
    raise RuntimeError(f"no tab {label!r}")


def main() -> None:
    from selenium.webdriver.common.by import By

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kopa-shots-"))
    build_results(work / "results")
    try:
        build_edge(work / "edge")
    except Exception as exc:  # the tab then shows its "no graph" message, which is worth a picture too
        print(f"EDGE demo graph failed: {exc}")
    env = {"KOPA_SPACE_RESULTS": str(work / "results"), "KOPA_EDGE_OUT": str(work / "edge")}
    profile = tempfile.mkdtemp(prefix="kopa-chromium-")
    driver = make_driver(profile)
    try:
        with running_space(**env) as url:
            driver.get(url)
            wait_for(lambda: driver.find_element(By.ID, "kopa-run")).click()
            wait_for(lambda: "success" in driver.find_element(By.ID, "kopa-score").text, timeout=90, what="the score")
            # open the last tool block so the picture shows a normalised response
            toggles = driver.find_elements(By.CSS_SELECTOR, "#kopa-trace .message-wrap button[aria-expanded], #kopa-trace .title")
            if toggles:
                try:
                    toggles[-1].click()
                except Exception:
                    pass
            time.sleep(1)
            driver.save_screenshot(str(out / "agent.png"))

            click_tab(driver, "Benchmark")
            wait_for(lambda: "tasks" in driver.find_element(By.ID, "kopa-bench-note").text, what="the task table")
            time.sleep(5)  # the first matching task is selected and its gold program drawn
            driver.save_screenshot(str(out / "benchmark.png"))

            click_tab(driver, "Leaderboard")
            wait_for(lambda: "result set" in driver.find_element(By.ID, "kopa-lb-note").text, what="the leaderboard")
            time.sleep(3)
            driver.save_screenshot(str(out / "leaderboard.png"))

            click_tab(driver, "EDGE")
            wait_for(lambda: driver.find_element(By.ID, "kopa-edge-note").text.strip(), what="the EDGE tab")
            time.sleep(4)
            driver.save_screenshot(str(out / "edge.png"))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(str(p) for p in sorted(out.glob("*.png"))))


if __name__ == "__main__":
    main()
