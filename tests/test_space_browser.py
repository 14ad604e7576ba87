"""The Space in a real headless chromium: run a task with the scripted oracle and read the trace;
the score table and the leaderboard keep every header word on one line, and every mark on the
page is a symbol a text font carries (no emoji, which shows as a box without an emoji font)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import unicodedata
from pathlib import Path

import pytest

from tests.limits import HANG_S

from tests.test_space_helpers import ROOT, running_space

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is absent (apt-get install chromium chromium-driver)"),
    pytest.mark.skipif(not Path(CHROMEDRIVER).exists(), reason="chromedriver is absent (apt-get install chromium-driver)"),
]
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", "--window-size=1500,1300", "--lang=ko-KR"]


def make_driver(profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in CHROME_FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def wait_for(pred, timeout: float = 60.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            v = pred()
            if v:
                return v
        except Exception:  # the element is re-rendered while we look; try again
            pass
        time.sleep(0.3)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="kopa-chromium-")
    driver = make_driver(profile)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


# Each header word's line boxes: a word squeezed to a letter a line has several.
BROKEN_HEADER_WORDS = """
const out = [];
for (const th of document.querySelectorAll(arguments[0])) {
  if (!th.offsetParent) continue;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const re = /\\S+/g; let m;
    while ((m = re.exec(node.data)) !== null) {
      const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
      const lines = new Set(Array.from(r.getClientRects()).map(q => Math.round(q.top))).size;
      if (lines > 1) out.push(m[0] + " x" + lines);
    }
  }
}
return out;
"""
HEADERS_SHOWN = "return Array.from(document.querySelectorAll(arguments[0])).filter(th => th.offsetParent).length"


def emoji_on_page(text: str) -> list[str]:
    """Characters that render as emoji (emoji presentation, or the emoji variation selector)."""
    try:
        import regex
    except ModuleNotFoundError:  # transformers' dependency; without it, the astral planes and the selector
        return sorted({c for c in text if ord(c) >= 0x1F000 or c == "\ufe0f"})
    return sorted(set(regex.findall(r"\p{Emoji_Presentation}|\ufe0f", text)))


def symbols_without_text_font(text: str) -> list[str]:
    """Symbols on the page that no installed non-emoji font carries (fontconfig's view; [] without fc-list).
    CJK blocks (U+3000-U+9FFF, Hangul, fullwidth forms; e.g. the ㎍/㎥ of a Korean answer) are the
    Korean font's business, which the Korean text needs anyway."""
    if not shutil.which("fc-list"):
        return []
    cjk = lambda c: 0x3000 <= ord(c) <= 0x9FFF or 0xAC00 <= ord(c) <= 0xD7AF or 0xF900 <= ord(c) <= 0xFFEF  # noqa: E731
    missing = []
    for c in sorted({c for c in text if ord(c) > 0x7F and not cjk(c) and unicodedata.category(c).startswith(("S", "P"))}):
        families = subprocess.run(["fc-list", f":charset={ord(c):x}", "family"], capture_output=True, text=True).stdout
        if not [f for f in families.splitlines() if f.strip() and "emoji" not in f.lower()]:
            missing.append(f"{c} U+{ord(c):04X}")
    return missing


def results_folder(root: Path) -> Path:
    """The repo's own score file, and the same numbers from a run that says it is incomplete."""
    folder = root / "results"
    folder.mkdir()
    docs = ROOT / "docs" / "results" / "qwen2.5-coder-0.5b-llamacpp-dev.score.json"
    shutil.copy(docs, folder / docs.name)
    partial = json.loads(docs.read_text(encoding="utf-8"))
    partial.update(model="partial-model", complete=False,
                   completeness={"unit": "episodes", "expected": 145, "finished": 32, "missing": ["x seed 0"],
                                 "infra_errors": [], "torn_lines": [], "source": "", "complete": False})
    (folder / "partial.score.json").write_text(json.dumps(partial), encoding="utf-8")
    return folder


def gold_answer_values(task_id: str) -> list:
    """The task's gold facts in the default world (the world decides the PM10, not this test)."""
    import asyncio

    from kopa_bench.client import KopaClient
    from kopa_bench.tasks import parse_tasks
    from kopa_bench.tasks.facts import compute_answer
    from kopa_bench.tasks.program import execute_program

    task = next(t for t in parse_tasks(json.loads((ROOT / "tests" / "data" / "space_tasks.json").read_text(encoding="utf-8")))
                if t.id == task_id)

    async def go():
        client = KopaClient("sandbox")
        try:
            return await execute_program(task, client)
        finally:
            await client.aclose()

    return [f.value for f in compute_answer(task, asyncio.run(go()))]


def test_trace_shows_tool_calls_and_final_answer(browser, tmp_path):
    from selenium.webdriver.common.by import By

    with running_space(KOPA_SPACE_RESULTS=str(results_folder(tmp_path))) as url:
        t0 = time.perf_counter()
        browser.get(url)
        run = wait_for(lambda: browser.find_element(By.ID, "kopa-run"), what="the Run button")
        wait_for(lambda: "kopa-space-001" in browser.find_element(By.ID, "kopa-task").text
                 or browser.find_element(By.CSS_SELECTOR, "#kopa-task input").get_attribute("value"), what="the task picker")
        run.click()
        trace = browser.find_element(By.ID, "kopa-trace")
        wait_for(lambda: "success" in browser.find_element(By.ID, "kopa-score").text, timeout=HANG_S, what="the score")
        text = trace.text
        for tool in ("airkorea_getTMStdrCrdnt", "airkorea_getNearbyMsrstnList", "airkorea_getMsrstnAcctoRltmMesureDnsty"):
            assert tool in text
        assert all(str(v) in text for v in gold_answer_values("kopa-space-001"))  # the nearest station and its PM10
        assert "Traceback" not in browser.page_source
        assert browser.execute_script(HEADERS_SHOWN, "#kopa-score th") >= 2
        assert browser.execute_script(BROKEN_HEADER_WORDS, "#kopa-score th, table th") == []
        shot = tmp_path / "agent_tab.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("KOPA_UPDATE_SCREENSHOTS") == "1":
            out = ROOT / "docs" / "screenshots" / "agent_tab.png"
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, out)
        page = browser.find_element(By.TAG_NAME, "body").text

        tab = next(b for b in browser.find_elements(By.CSS_SELECTOR, "button[role='tab']") if b.text.strip() == "Leaderboard")
        tab.click()
        board = wait_for(lambda: (e := browser.find_element(By.ID, "kopa-leaderboard")) and "partial-model" in e.text and e,
                         what="the leaderboard rows")
        assert "INCOMPLETE: 32 of 145" in board.text and "not recorded" in board.text
        assert "1 incomplete run(s)" in browser.find_element(By.ID, "kopa-lb-note").text
        assert browser.execute_script(HEADERS_SHOWN, "#kopa-leaderboard th") >= 6
        assert browser.execute_script(BROKEN_HEADER_WORDS, "#kopa-leaderboard th") == []
        page += browser.find_element(By.TAG_NAME, "body").text
        assert emoji_on_page(page) == []
        assert symbols_without_text_font(page) == []
        print(f"browser run took {time.perf_counter() - t0:.1f}s; screenshot {shot}")
