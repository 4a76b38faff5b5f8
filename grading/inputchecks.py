"""A custom driver's own input check (`check_input`, docs/architecture.md "Drivers"), run in
the sandbox: the driver is author code, so it is never imported on this host.

All the inputs of one call run in ONE container: the sandbox's custom driver is a small
wrapper that imports the author's driver as a module and calls its `check_input` on each
input as if each were a test, so the harness's limits (CPU per input, memory, output size)
apply to the check as they do to a grading.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import ApplicationError
from grading.sandboxing import sandbox_image, sandbox_limits
from problems.package import driver_input_check
from sandbox import SandboxError, TestInput, TestOutcome, run

logger = logging.getLogger(__name__)

# The author's driver, as the wrapper imports it (any identifier but the harness's reserved
# names would do; this one says whose module a traceback is in).
CHECKED_MODULE = "author_driver"
MAX_PROBLEM_CHARS = 500

_WRAPPER = f"""
import {CHECKED_MODULE} as _author


def run(solution, test_input):
    problem = _author.check_input(test_input)
    if problem is None or problem == "":
        return {{"fits": True}}
    if isinstance(problem, str):
        return {{"problem": problem}}
    return {{"returned": type(problem).__name__}}
"""


class InputCheckError(ApplicationError):
    """The inputs could not be checked at all (the sandbox is down): nothing may be saved."""


_UNFINISHED = {
    "timeout": "it ran past the wall-clock limit",
    "cpu": "it ran past the CPU limit",
    "memory": "it ran out of memory",
    "output": "it printed past the output limit",
    "crash": "its process ended without an answer",
}


def _outcome_problem(outcome: TestOutcome | None) -> str:
    """One input's outcome as a sentence: "" when it fits."""
    if outcome is None:
        return "the driver's check_input gave no answer for this input"
    if outcome.status == "error":
        lines = outcome.error.strip().splitlines() or [outcome.exc_type or "an exception"]
        where = "importing the driver" if outcome.phase == "driver" else "check_input"
        return f"the driver crashed in {where} on this input: {lines[-1]}"[:MAX_PROBLEM_CHARS]
    if outcome.status != "ok":
        why = _UNFINISHED.get(outcome.status, outcome.status)
        return f"the driver's check_input did not finish on this input: {why}"
    output = outcome.output
    if isinstance(output, dict) and output.get("fits") is True:
        return ""
    if isinstance(output, dict) and isinstance(output.get("problem"), str):
        return output["problem"].strip()[:MAX_PROBLEM_CHARS]
    returned = output.get("returned") if isinstance(output, dict) else None
    return (
        f"the driver's check_input returned {returned or 'something'} instead of a sentence or None"
    )


def driver_inputs_check(
    *,
    driver_code: str,
    support_code: str,
    limits: Mapping[str, Any],
    queue: str,
    inputs: Sequence[Any],
) -> list[str]:
    """What the custom driver's `check_input` says of each of `inputs`, in order: a sentence, or
    "" where the input fits (also for every input when the driver has no `check_input`).

    A check that crashes, runs out of its limits or returns something else than a string or
    None is the author's bug, reported at that input; a sandbox that does not run at all raises
    InputCheckError."""
    if not inputs or driver_input_check(driver_code) is None:
        return ["" for _ in inputs]
    modules = {CHECKED_MODULE: driver_code}
    if support_code:
        modules["support"] = support_code
    by_index: dict[int, TestOutcome] = {}
    try:
        result = run(
            solution="",
            driver={"kind": "custom", "source": _WRAPPER},
            tests=[
                TestInput(name=f"input {number}", input=value, stop_group=f"input:{number}")
                for number, value in enumerate(inputs)
            ],
            limits=sandbox_limits(limits),
            image=sandbox_image(queue),
            gpu=False,  # a format check needs no device
            modules=modules,
        )
    except (SandboxError, ValueError) as exc:
        # The sandbox's own words (a socket path, an image tag) go to the log, not the author.
        logger.warning("input check not run: %s", exc)
        raise InputCheckError(
            "sandbox",
            "the inputs could not be checked by the driver's check_input: the sandbox is not "
            "available right now, so nothing was saved; try again in a minute",
        ) from exc
    for outcome in result.outcomes:
        by_index.setdefault(outcome.index, outcome)
    return [_outcome_problem(by_index.get(number)) for number in range(len(inputs))]
