"""The judges' and HTTP targets' calls run on uvloop's event loop where it is installed (less
CPU a call), and on asyncio's own loop where it is not — the same results either way."""

from __future__ import annotations

import asyncio
import sys

import pytest

from evaluators.llm import run_blocking
from tests.evaluators.test_llm_client import judge
from tests.support import llm_fixtures

llm_server = llm_fixtures.llm_server


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_calls_run_on_uvloop_when_it_is_installed() -> None:
    assert run_blocking(_loop_module()).startswith("uvloop")


def test_calls_fall_back_to_asyncios_loop_without_uvloop(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert run_blocking(_loop_module()).startswith("asyncio")


def test_a_caller_inside_a_running_loop_gets_uvloop_in_the_helper_thread() -> None:
    async def nested() -> str:
        return run_blocking(_loop_module())

    assert asyncio.run(nested()).startswith("uvloop")


@pytest.mark.parametrize("installed", [True, False])
def test_a_judge_scores_the_same_on_either_loop(llm_server, monkeypatch, installed) -> None:
    if not installed:
        monkeypatch.setitem(sys.modules, "uvloop", None)
    outcome = judge(llm_server, "clean")
    assert (outcome.status, outcome.score) == ("success", 0.8)
