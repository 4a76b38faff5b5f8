"""Problem packages: reading, refusing malformed ones with a precise error, round-tripping."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from problems.package import PackageError, package_lint, package_read, package_write
from tests.problems.packages import BANK, TOML, make_package


def test_reads_a_well_formed_package(tmp_path: Path) -> None:
    package = package_read(make_package(tmp_path))
    assert package.slug == "tiny"
    assert [t.name for t in package.public_tests] == ["p0", "p1", "p2"]
    assert all(t.hidden for t in package.hidden_tests)
    assert package.wrong[0].verdict == "WA"
    assert (package.wrong[0].groups, package.wrong[0].says) == (("small",), "expected")
    assert "needs at least 12 hidden tests" in package_lint(package)


@pytest.mark.parametrize(
    ("mutate", "file", "field"),
    [
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"Tiny"', "3")),
            "problem.toml",
            "title",
        ),
        (lambda f: (f / "problem.toml").write_text("slug = [\n"), "problem.toml", "file"),
        (
            lambda f: (f / "tests" / "hidden.json").write_text(
                '[{"name": "h", "input": 1, "expected": 2}]'
            ),
            "hidden.json",
            "[0].tag",
        ),
        (lambda f: (f / "tests" / "public.json").write_text("{not json"), "public.json", "file"),
        (lambda f: (f / "reference.py").unlink(), "reference.py", "file"),
        (lambda f: (f / "reference.py").write_text("def solve(:\n"), "reference.py", "line 1"),
        (lambda f: (f / "wrong" / "off_by_one.py").unlink(), "off_by_one.py", "file"),
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"function"', '"magic"')),
            "problem.toml",
            "grading.driver",
        ),
        (
            lambda f: (f / "problem.toml").write_text(
                TOML.replace('verdict = "WA"', 'verdict = "AC"')
            ),
            "problem.toml",
            "wrong[0].verdict",
        ),
        (
            lambda f: (f / "problem.toml").write_text(
                TOML.replace('groups = ["small"]', "groups = [3]")
            ),
            "problem.toml",
            "wrong[0].groups",
        ),
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"tiny"', '"other"')),
            "problem.toml",
            "slug",
        ),
    ],
)
def test_malformed_package_names_file_and_field(
    tmp_path: Path, mutate, file: str, field: str
) -> None:
    folder = make_package(tmp_path)
    mutate(folder)
    with pytest.raises(PackageError) as error:
        package_read(folder)
    assert error.value.path.endswith(file)
    assert error.value.field == field


def test_write_then_read_is_the_same_package(tmp_path: Path) -> None:
    original = package_read(make_package(tmp_path / "in"))
    folder = package_write(original, tmp_path / "out")
    again = package_read(folder)
    assert again == original
    assert again.tests_hash == original.tests_hash


def test_a_clarification_may_declare_other_phrasings_and_keywords(tmp_path: Path) -> None:
    folder = make_package(tmp_path / "in")
    toml = TOML.replace(
        "key = true", 'key = true\nalso = ["Can x be below zero?"]\nkeywords = ["negative", "sign"]'
    )
    (folder / "problem.toml").write_text(toml)
    package = package_read(folder)
    (clarification,) = package.clarifications
    assert clarification.also == ("Can x be below zero?",)
    assert clarification.keywords == ("negative", "sign")
    assert clarification.as_dict()["also"] == ["Can x be below zero?"]
    assert package_read(package_write(package, tmp_path / "out")) == package
    # A clarification without them stores what it stored before they existed.
    plain = package_read(make_package(tmp_path / "plain")).clarifications[0]
    assert plain.as_dict() == {"question": "Negative numbers?", "answer": "Yes.", "key": True}


@pytest.mark.parametrize(
    "folder",
    sorted(p for p in BANK.iterdir() if (p / "problem.toml").exists()) if BANK.exists() else [],
    ids=lambda p: p.name,
)
def test_every_bank_package_is_well_formed_and_complete(folder: Path, tmp_path: Path) -> None:
    package = package_read(folder)
    assert package_lint(package) == []
    shutil.rmtree(tmp_path)
    assert package_read(package_write(package, tmp_path)) == package


# ---------------------------------------------------------------- every malformed field


def _toml(old: str, new: str) -> object:
    def mutate(folder: Path) -> None:
        assert old in TOML, old
        (folder / "problem.toml").write_text(TOML.replace(old, new, 1))

    return mutate


def _top(key: str, value: str) -> object:
    """`key = value` at the top of problem.toml, in place of the `[[key]]` tables."""

    def mutate(folder: Path) -> None:
        text = TOML.replace(f"[[{key}]]", f"[[unused_{key}]]")
        (folder / "problem.toml").write_text(f"{key} = {value}\n{text}")

    return mutate


def _limits(body: str) -> object:
    def mutate(folder: Path) -> None:
        (folder / "problem.toml").write_text(TOML + f"\n[limits]\n{body}\n")

    return mutate


def _folder_where(name: str) -> object:
    def mutate(folder: Path) -> None:
        (folder / name).unlink()
        (folder / name).mkdir()

    return mutate


MALFORMED = [
    # (what, mutate, file, field)
    ("memory_mb lots", _limits('memory_mb = "lots"'), "problem.toml", "limits.memory_mb"),
    ("memory_mb fraction", _limits("memory_mb = 256.5"), "problem.toml", "limits.memory_mb"),
    ("memory_mb inf", _limits("memory_mb = inf"), "problem.toml", "limits.memory_mb"),
    ("memory_mb bool", _limits("memory_mb = true"), "problem.toml", "limits.memory_mb"),
    ("wall text", _limits('test_wall_seconds = "2s"'), "problem.toml", "limits.test_wall_seconds"),
    ("cpu list", _limits("test_cpu_seconds = [2]"), "problem.toml", "limits.test_cpu_seconds"),
    ("cpu nan", _limits("test_cpu_seconds = nan"), "problem.toml", "limits.test_cpu_seconds"),
    (
        "wall past floats",
        _limits(f"test_wall_seconds = {10**400}"),
        "problem.toml",
        "limits.test_wall_seconds",
    ),
    ("memory of 5000 digits", _limits(f"memory_mb = {'9' * 5000}"), "problem.toml", "file"),
    ("memory past bounds", _limits(f"memory_mb = {10**400}"), "problem.toml", "limits.memory_mb"),
    ("output date", _limits("output_bytes = 1979-05-27"), "problem.toml", "limits.output_bytes"),
    ("output table", _limits("output_bytes = {a = 1}"), "problem.toml", "limits.output_bytes"),
    (
        "limits not a table",
        _toml('hints = ["one", "two"]', 'hints = ["one", "two"]\nlimits = 3'),
        "problem.toml",
        "limits",
    ),
    (
        "float_rel text",
        _toml('compare = "exact"', 'compare = "float"\nfloat_rel = "tight"'),
        "problem.toml",
        "grading.float_rel",
    ),
    (
        "float_abs negative",
        _toml('compare = "exact"', 'compare = "float"\nfloat_abs = -1.0'),
        "problem.toml",
        "grading.float_abs",
    ),
    (
        "float_rel inf",
        _toml('compare = "exact"', 'compare = "exact"\nfloat_rel = inf'),
        "problem.toml",
        "grading.float_rel",
    ),
    (
        "rubric weight text",
        _toml("weight = 2", 'weight = "heavy"'),
        "problem.toml",
        "rubric[0].weight",
    ),
    ("wrong not a table", _top("wrong", "[1]"), "problem.toml", "wrong[0]"),
    (
        "clarification not a table",
        _top("clarification", "['x']"),
        "problem.toml",
        "clarification[0]",
    ),
    ("rubric not a table", _top("rubric", "[3]"), "problem.toml", "rubric[0]"),
    (
        "also not a list",
        _toml("key = true", 'key = true\nalso = "Negatives?"'),
        "problem.toml",
        "clarification[0].also",
    ),
    (
        "also empty phrase",
        _toml("key = true", 'key = true\nalso = [" "]'),
        "problem.toml",
        "clarification[0].also",
    ),
    (
        "keywords numbers",
        _toml("key = true", "key = true\nkeywords = [1]"),
        "problem.toml",
        "clarification[0].keywords",
    ),
    ("wrong not a list", _top("wrong", "'x'"), "problem.toml", "wrong"),
    (
        "wrong file NUL",
        _toml('file = "wrong/off_by_one.py"', 'file = "wrong/\\u0000.py"'),
        "problem.toml",
        "wrong[0].file",
    ),
    (
        "wrong file name too long",
        _toml('file = "wrong/off_by_one.py"', f'file = "{"x" * 5000}"'),
        "problem.toml",
        "wrong[0].file",
    ),
    (
        "wrong file under a file",
        _toml('file = "wrong/off_by_one.py"', 'file = "reference.py/x.py"'),
        "reference.py/x.py",
        "file",
    ),
    ("title too long", _toml('title = "Tiny"', f'title = "{"T" * 201}"'), "problem.toml", "title"),
    ("bad TOML", lambda f: (f / "problem.toml").write_text("slug = \n"), "problem.toml", "file"),
    (
        "deep TOML",
        lambda f: (f / "problem.toml").write_text("a = " + "[" * 5000 + "]" * 5000),
        "problem.toml",
        "file",
    ),
    ("missing toml", lambda f: (f / "problem.toml").unlink(), "problem.toml", "file"),
    ("missing statement", lambda f: (f / "statement.md").unlink(), "statement.md", "file"),
    ("missing hidden", lambda f: (f / "tests" / "hidden.json").unlink(), "hidden.json", "file"),
    ("statement a folder", _folder_where("statement.md"), "statement.md", "file"),
    ("public a folder", _folder_where("tests/public.json"), "public.json", "file"),
    (
        "deep JSON",
        lambda f: (f / "tests" / "public.json").write_text("[" * 100_000),
        "public.json",
        "file",
    ),
    (
        "NUL in source",
        lambda f: (f / "reference.py").write_text("x = 1\0\n"),
        "reference.py",
        "file",
    ),
    ("not UTF-8", lambda f: (f / "starter.py").write_bytes(b"\xff\xfe"), "starter.py", "file"),
]


@pytest.mark.parametrize(
    ("mutate", "file", "field"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_every_malformed_field_is_named_with_its_file_and_never_the_server_path(
    tmp_path: Path, mutate, file: str, field: str
) -> None:
    # given a well-formed package with one field broken
    folder = make_package(tmp_path)
    mutate(folder)
    # when it is read, then the error names the file (from the package's folder) and field
    with pytest.raises(PackageError) as error:
        package_read(folder)
    assert (error.value.path, error.value.field) == (
        f"tiny/{file}".replace("tiny/public.json", "tiny/tests/public.json").replace(
            "tiny/hidden.json", "tiny/tests/hidden.json"
        ),
        field,
    )
    assert str(tmp_path) not in str(error.value)
    assert str(tmp_path.resolve()) not in str(error.value)


def _custom_copy(tmp_path: Path, driver_code: str) -> Path:
    folder = tmp_path / "gpu-bin-packing"
    shutil.copytree(BANK / "gpu-bin-packing", folder)
    (folder / "driver.py").write_text(driver_code)
    return folder


RUN_ONLY = "def run(solution, inp):\n    return solution.first_fit_decreasing(**inp)\n"


@pytest.mark.parametrize(
    "check",
    [
        "def check_input():\n    return None\n",
        "def check_input(a, b):\n    return None\n",
        "async def check_input(inp):\n    return None\n",
        "def check_input(inp, *, strict):\n    return None\n",
    ],
)
def test_a_check_input_that_cannot_take_one_input_is_refused(tmp_path: Path, check: str) -> None:
    with pytest.raises(PackageError, match="check_input must be a plain function"):
        package_read(_custom_copy(tmp_path, RUN_ONLY + "\n\n" + check))


def test_a_custom_driver_without_an_input_check_breaks_a_bank_rule(tmp_path: Path) -> None:
    package = package_read(_custom_copy(tmp_path, RUN_ONLY))  # well-formed: the check is optional
    assert any("check_input" in issue for issue in package_lint(package))
    checked = RUN_ONLY + "\n\ndef check_input(inp, strict=True):\n    return None\n"
    assert not any("check_input" in i for i in package_lint(package_read(_custom_copy(
        tmp_path / "again", checked))))  # fmt: skip
