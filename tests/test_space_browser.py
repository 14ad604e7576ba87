"""The Space in a real headless chromium: run a task with the scripted oracle and read the trace."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
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


def test_trace_shows_tool_calls_and_final_answer(browser, tmp_path):
    from selenium.webdriver.common.by import By

    with running_space() as url:
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
        assert "종로구" in text and "26" in text  # the final answer: nearest station and its PM10
        assert "Traceback" not in browser.page_source
        shot = tmp_path / "agent_tab.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("KOPA_UPDATE_SCREENSHOTS") == "1":
            out = ROOT / "docs" / "screenshots" / "agent_tab.png"
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, out)
        print(f"browser run took {time.perf_counter() - t0:.1f}s; screenshot {shot}")
