"""train/grpo.py --system_prompt: rollouts can start from the benchmark runner's own prompt."""
from kopa_bench.runner.agent import system_prompt, world_now
from train.grpo import resolve_system_prompt
from train.prepare_data import SYSTEM_PROMPT, grpo_row


def test_runner_prompt_is_the_evaluation_prompt():
    assert resolve_system_prompt("runner") == system_prompt(world_now())
    assert "2026-11-30" in resolve_system_prompt("runner")  # the world clock, as at evaluation


def test_default_and_custom_prompts():
    assert resolve_system_prompt(None) == SYSTEM_PROMPT
    assert resolve_system_prompt("너는 도우미야.") == "너는 도우미야."
    row = {"query": "질문", "tools": '["juso_addrLinkApi"]'}
    assert grpo_row(row, resolve_system_prompt("runner"))["prompt"][0]["content"] == system_prompt(world_now())
