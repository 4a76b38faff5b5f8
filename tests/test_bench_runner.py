"""`python -m bench NAME…`: the runner's own arguments never reach a benchmark's parser."""

from __future__ import annotations

import importlib
import sys

import pytest

# the benchmarks that take options
PARSING = ("batching", "paged_kv", "sessions", "similarity_scale", "fresh_start")


@pytest.mark.parametrize("name", PARSING)
def test_a_benchmark_parses_only_the_arguments_it_is_given(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # what `python -m bench batching paged_kv` leaves in sys.argv
    monkeypatch.setattr(sys, "argv", ["bench", "batching", "paged_kv", "--bogus"])
    module = importlib.import_module(f"bench.{name}")
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])
    assert exit_info.value.code == 0
    assert "usage" in capsys.readouterr().out


def test_the_runner_refuses_an_unknown_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.__main__ import main

    assert main(["no_such_bench"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err
