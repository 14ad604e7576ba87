"""The Space leaderboard tab's BFCL v4 table: BFCL score and leaderboard files from the results
folder, kept apart from KOPA-Bench's table (no bfcl-eval needed to show them)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.test_space_helpers import ROOT

pytest.importorskip("gradio")
sys.path.insert(0, str(ROOT / "space"))

SCORE = {"benchmark": "BFCL v4", "bfcl_eval": "2026.3.23", "model": "llamacpp:qwen2.5-coder-0.5b", "mode": "fc",
         "category": "simple_python", "accuracy": 0.62, "correct_count": 31, "total_count": 50, "category_size": 400}
BOARD = {"benchmark": "BFCL v4", "bfcl_eval": "2026.3.23", "models": [
    {"model": "replay", "categories": {"multiple": {"accuracy": 1.0, "total_count": 200, "category_size": 200}},
     "non_live": {"Non-Live Overall Acc": "83.33%", "AST Summary": "N/A"}, "multi_turn": {}}]}


def test_bfcl_files_get_their_own_table_and_stay_out_of_kopa_benchs(tmp_path):
    from kopa_space import bfcl_board
    from kopa_space.leaderboard_tab import build_bfcl_board, build_leaderboard

    (tmp_path / "bfcl-qwen-simple.json").write_text(json.dumps(SCORE), encoding="utf-8")
    (tmp_path / "board").mkdir()
    (tmp_path / "board" / "bfcl_score.json").write_text(json.dumps({**SCORE, "model": "replay", "category": "irrelevance",
                                                                    "accuracy": 1.0, "total_count": 240, "category_size": 240}))
    (tmp_path / "bfcl_leaderboard.json").write_text(json.dumps(BOARD), encoding="utf-8")
    _, msg, _, _ = build_leaderboard(str(tmp_path), [])
    assert "No results found" in msg and "bfcl" not in msg.split("upload files.")[-1]  # not listed as unreadable
    update, note = build_bfcl_board(str(tmp_path), [])
    assert "BFCL v4" in note and "not KOPA-Bench" in note
    headers, rows = update["headers"], update["value"]
    assert headers[:4] == ["model", "simple_python", "multiple", "irrelevance"]
    by_model = {r[0]: dict(zip(headers, r)) for r in rows}
    assert by_model["llamacpp:qwen2.5-coder-0.5b"]["simple_python"] == "62.0% (50/400)"
    assert by_model["replay"]["multiple"] == "100.0% (200/200)" and by_model["replay"]["irrelevance"] == "100.0% (240/240)"
    assert by_model["replay"]["non_live: Non-Live Overall Acc"] == "83.33%"
    assert bfcl_board.is_bfcl(tmp_path / "board") and not bfcl_board.is_bfcl(tmp_path / "missing.json")


def test_an_empty_folder_says_how_to_make_bfcl_results(tmp_path):
    from kopa_space.leaderboard_tab import build_bfcl_board

    update, note = build_bfcl_board(str(tmp_path), [])
    assert update["value"] == [] and "kopa bfcl score" in note
