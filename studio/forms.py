"""Studio forms. Field checks here are about the form; whether tests make a valid package is
decided by the package reader itself (studio.services.versions.version_create), and its errors are
put back on the field they came from."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django import forms

from core.verdicts import PRIORITY as VERDICT_PRIORITY
from problems import kinds
from problems.package import (
    COMPARES,
    DESIGN_BOARD,
    DRIVERS,
    KINDS,
    MAX_BOARD_BYTES,
    MAX_SOURCE_BYTES,
    TAGS,
    Clarification,
    Grading,
    Package,
    PackageError,
    RubricCriterion,
    board_check,
)
from studio.generators import GeneratorError, input_generate
from studio.rows import (
    MAX_ROWS,
    clarifications_from_rows,
    hints_from_rows,
    rows_posted,
    rubric_from_rows,
)

_TEXTAREA = {"rows": 18, "spellcheck": "false", "autocomplete": "off"}

# Which form field a package error belongs to, by the file the package reader names.
FIELD_FOR_FILE = {"public.json": "public_tests", "hidden.json": "hidden_tests"}
LIMIT_FIELDS = ("test_wall_seconds", "test_cpu_seconds", "memory_mb", "output_bytes")
RESERVED_SLUGS = frozenset({"new", "import"})  # studio URLs beside /studio/<slug>/


class StatementForm(forms.Form):
    statement_md = forms.CharField(
        label="Statement (Markdown)",
        strip=False,
        max_length=MAX_SOURCE_BYTES,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code"}),
    )


class TestsForm(forms.Form):
    __test__ = False  # not a pytest class

    # data-lines: a gutter of line numbers (studio/rows.js), as JSON errors cite lines.
    public_tests = forms.CharField(
        label="Public tests (JSON list)",
        strip=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code", "data-lines": "true"}),
    )
    hidden_tests = forms.CharField(
        label="Hidden tests (JSON list)",
        strip=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code", "data-lines": "true"}),
    )
    # Limits have a form of their own (LimitsForm, issue 34.5): this one carries only tests.

    def add_package_error(self, exc: PackageError) -> None:
        """Put the package reader's complaint on the field whose content caused it."""
        file = Path(exc.path).name
        field: str | None = FIELD_FOR_FILE.get(file)
        message = f"{exc.field}: {exc.problem}"
        if field is None:
            message = f"{file}: {message}"
        self.add_error(field, message)


class LimitsForm(forms.Form):
    """The version's limits alone: a small post whatever the number and size of the tests."""

    test_wall_seconds = forms.FloatField(label="Wall limit per test (s)", min_value=0.1)
    test_cpu_seconds = forms.FloatField(label="CPU limit per test (s)", min_value=0.1)
    memory_mb = forms.IntegerField(label="Memory (MB)", min_value=32)
    # Every limit is settable (issue 28.7); left empty, the version keeps the one it has.
    output_bytes = forms.IntegerField(
        label="Output per test (bytes)", min_value=1024, max_value=16 * 1024 * 1024,
        required=False, help_text="the candidate's stdout and stderr, per test",
    )

    def limits(self) -> dict[str, Any]:
        return {
            name: self.cleaned_data[name]
            for name in LIMIT_FIELDS
            if self.cleaned_data.get(name) is not None
        }

    def add_package_error(self, exc: PackageError) -> None:
        name = exc.field.removeprefix("limits.")
        self.add_error(name if name in LIMIT_FIELDS else None, exc.problem)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


# What a problem asks for (problems.kinds), as the studio's choices name them.
KIND_CHOICES = [(kind, kinds.kind_of(kind).label) for kind in KINDS]


class NewProblemForm(forms.Form):
    slug = forms.SlugField(max_length=80, help_text="lowercase words joined by '-'")
    title = forms.CharField(max_length=200)
    difficulty = forms.ChoiceField(choices=[(d, d) for d in ("easy", "medium", "hard")],
                                   initial="medium")
    queue = forms.ChoiceField(choices=[("cpu", "cpu"), ("gpu", "gpu")], initial="cpu")
    kind = forms.ChoiceField(choices=KIND_CHOICES, initial="implement",
                             help_text="design: a whiteboard round, no code or tests")
    topics = forms.CharField(required=False, help_text="comma-separated")
    entry = forms.RegexField(regex=r"^[A-Za-z_]\w*$", initial="solve", max_length=60,
                             required=False, label="Function or class the candidate writes",
                             help_text="not used by a design problem")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = kinds.find(data.get("kind"))
        needs_entry = kind is None or kind.runs_code
        if needs_entry and "entry" not in self.errors and not data.get("entry"):
            self.add_error("entry", "name the function or class the candidate writes")
        return data

    def clean_slug(self) -> str:
        slug: str = self.cleaned_data["slug"]
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"{slug!r} is a studio page; choose another slug")
        return slug

    def clean_topics(self) -> tuple[str, ...]:
        return tuple(t.strip() for t in self.cleaned_data["topics"].split(",") if t.strip())


class ImportForm(forms.Form):
    archive = forms.FileField(label="Package .zip")


# A Python part: the studio's bundle mounts a code editor over it (data-code names the mode).
_CODE = forms.Textarea(
    attrs=_TEXTAREA | {"class": "studio-code", "rows": 14, "data-code": "python"}
)


def board_text(board: Any) -> str:
    """A board as the studio's JSON box shows it: one element per line (a board has dozens
    of elements of some thirty fields each; indented, it would be thousands of lines)."""
    if not board:
        return "[]"
    return "[\n" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in board) + "\n]"


class PartsForm(forms.Form):
    """Every part of the package that is code or prose, plus the grading settings."""

    starter_code = forms.CharField(label="Starter (starter.py)", strip=False, required=False,
                                   widget=_CODE, max_length=MAX_SOURCE_BYTES)
    reference_code = forms.CharField(label="Reference (reference.py)", strip=False,
                                     widget=_CODE, max_length=MAX_SOURCE_BYTES)
    driver_code = forms.CharField(label="Driver (driver.py, for a custom driver)", strip=False,
                                  required=False, widget=_CODE, max_length=MAX_SOURCE_BYTES)
    checker_code = forms.CharField(label="Checker (checker.py, for compare = checker)",
                                   strip=False, required=False, widget=_CODE,
                                   max_length=MAX_SOURCE_BYTES)
    support_code = forms.CharField(label="Support module (support.py)", strip=False,
                                   required=False, widget=_CODE, max_length=MAX_SOURCE_BYTES)
    hints = forms.CharField(label="Hints (one per line, in the order they unlock)",
                            required=False, widget=forms.Textarea(attrs={"rows": 4}))
    follow_ups = forms.CharField(label="Follow-up questions (one per line)", required=False,
                                 widget=forms.Textarea(attrs={"rows": 3}))
    clarifications = forms.CharField(
        label=('Clarifications (JSON: [{"question", "answer", "key": true|false, optional '
               '"also": [other phrasings], "keywords": [words]}])'),
        strip=False, required=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"rows": 6, "data-lines": "true",
                                                 "class": "studio-code"}),
    )
    rubric = forms.CharField(
        label='Rubric (JSON: [{"criterion", "weight", "strong", "levels": [4 anchors]}])',
        strip=False, required=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"rows": 8, "data-lines": "true",
                                                 "class": "studio-code"}),
    )
    # Issue 28.7: the rows are the editor; ticking one of these saves its JSON text instead.
    clarifications_as_json = forms.BooleanField(
        required=False, label="Save the clarifications from the JSON below, not the rows")
    rubric_as_json = forms.BooleanField(
        required=False, label="Save the rubric from the JSON below, not the rows")
    hints_as_text = forms.BooleanField(
        required=False, label="Save the hints from the text below, not the rows")
    title = forms.CharField(max_length=200)
    difficulty = forms.ChoiceField(choices=[(d, d) for d in ("easy", "medium", "hard")])
    queue = forms.ChoiceField(choices=[("cpu", "cpu"), ("gpu", "gpu")])
    kind = forms.ChoiceField(choices=KIND_CHOICES)
    topics = forms.CharField(required=False, help_text="comma-separated")
    # A design problem's reference board (reference/board.json): Excalidraw elements, edited
    # as JSON (an advanced field: the bank draws them with problems/bank/_tools/board.py).
    reference_board = forms.CharField(
        label=f"Reference board (JSON: a list of Excalidraw elements, {DESIGN_BOARD})",
        strip=False, required=False, max_length=MAX_BOARD_BYTES,
        widget=forms.Textarea(attrs=_TEXTAREA | {"rows": 10, "data-lines": "true",
                                                 "class": "studio-code"}),
    )
    driver = forms.ChoiceField(choices=[(d, d) for d in DRIVERS])
    entry = forms.CharField(max_length=60, required=False)
    compare = forms.ChoiceField(choices=[(c, c) for c in COMPARES])
    float_rel = forms.FloatField(min_value=0)
    float_abs = forms.FloatField(min_value=0)

    CODE_FIELDS = ("starter_code", "reference_code", "driver_code", "checker_code",
                   "support_code", "hints", "follow_ups")
    SETTING_FIELDS = ("title", "difficulty", "queue", "kind", "topics", "driver", "entry",
                      "compare", "float_rel", "float_abs")

    # A design problem's form: its reference design text (reference_code) and follow-ups as
    # boxes, a few settings, and the rest carried as hidden fields (nothing of it runs).
    DESIGN_CODE_FIELDS = ("reference_code", "follow_ups")
    DESIGN_SETTING_FIELDS = ("title", "difficulty", "topics")
    DESIGN_HIDDEN_FIELDS = ("starter_code", "driver_code", "checker_code", "support_code",
                            "queue", "kind", "driver", "entry", "compare", "float_rel",
                            "float_abs")

    def code_fields(self) -> list[forms.BoundField]:
        """The code and prose boxes; the hints have their rows (_structured.html) instead."""
        return [self[name] for name in self.CODE_FIELDS if name != "hints"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        kind = self.data.get("kind") if self.is_bound else self.initial.get("kind")
        if (spec := kinds.find(kind)) is not None and not spec.runs_code:
            # Its reference is prose (Markdown), not Python: a plain box, as the statement's.
            reference = self.fields["reference_code"]
            reference.label = "Reference design for the interviewer (Markdown, reference/design.md)"
            reference.widget = forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code"})
            self.fields["follow_ups"].widget = forms.Textarea(attrs={"rows": 8})

    def design_code_fields(self) -> list[forms.BoundField]:
        return [self["reference_code"], self["follow_ups"]]

    def design_setting_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.DESIGN_SETTING_FIELDS]

    def design_hidden_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.DESIGN_HIDDEN_FIELDS]

    def clean_reference_board(self) -> tuple[dict[str, Any], ...]:
        """The board's JSON, checked by the package format's own rules (errors at the field,
        naming the element: `[3].type: ...`)."""
        text = self.cleaned_data.get("reference_board", "").strip() or "[]"
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from exc
        except RecursionError:
            raise forms.ValidationError("not valid JSON: nested too deeply") from None
        try:
            return board_check(value)
        except PackageError as exc:
            message = exc.problem if exc.field == "file" else f"{exc.field}: {exc.problem}"
            raise forms.ValidationError(message) from None

    def setting_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.SETTING_FIELDS]

    @classmethod
    def initial_from(cls, package: Package) -> dict[str, Any]:
        grading = package.grading
        return {
            "title": package.title,
            "difficulty": package.difficulty,
            "queue": package.queue,
            "kind": package.kind,
            "topics": ", ".join(package.topics),
            "starter_code": package.starter_code,
            "reference_code": package.reference_code,
            "driver_code": package.driver_code,
            "checker_code": package.checker_code,
            "support_code": package.support_code,
            "hints": "\n".join(package.hints),
            "follow_ups": "\n".join(package.follow_ups),
            "clarifications": json.dumps(
                [c.as_dict() for c in package.clarifications], indent=1, ensure_ascii=False
            ),
            "rubric": json.dumps(
                [asdict(r) | {"levels": list(r.levels)} for r in package.rubric],
                indent=1, ensure_ascii=False,
            ),
            "reference_board": board_text(package.reference_board),
            "driver": grading.driver,
            "entry": grading.entry,
            "compare": grading.compare,
            "float_rel": grading.float_rel,
            "float_abs": grading.float_abs,
        }

    def _json_list(self, name: str) -> list[dict[str, Any]]:
        text = self.cleaned_data.get(name, "").strip() or "[]"
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from exc
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise forms.ValidationError("must be a JSON list of objects")
        return value

    def clean_clarifications(self) -> tuple[Clarification, ...]:
        items = self._json_list("clarifications")
        try:
            return tuple(Clarification.from_dict(c) for c in items)
        except KeyError as exc:
            raise forms.ValidationError(f"each clarification needs {exc}") from exc
        except ValueError as exc:  # `also` or `keywords` that is not a list of strings
            raise forms.ValidationError(str(exc)) from exc

    def clean_rubric(self) -> tuple[RubricCriterion, ...]:
        items = self._json_list("rubric")
        try:
            return tuple(
                RubricCriterion(
                    str(r["criterion"]), r.get("weight", 1), str(r["strong"]),
                    tuple(r.get("levels", ())),
                )
                for r in items
            )
        except (KeyError, TypeError) as exc:
            raise forms.ValidationError(f"each criterion needs {exc}") from exc

    def clean(self) -> dict[str, Any]:
        """The rows win over the JSON view unless its box is ticked (or no row was posted)."""
        data = super().clean() or {}
        for name, prefix, parse in (("clarifications", "clar", clarifications_from_rows),
                                    ("rubric", "rub", rubric_from_rows)):  # fmt: skip
            if data.get(f"{name}_as_json") or not rows_posted(self.data, prefix):
                continue
            self.errors.pop(name, None)  # the JSON view is not what is saved
            try:
                data[name] = parse(self.data)
            except forms.ValidationError as exc:
                self.add_error(name, exc)
        if not data.get("hints_as_text") and rows_posted(self.data, "hint"):
            data["hints"] = "\n".join(hints_from_rows(self.data))
        return data

    def hint_rows(self) -> list[str]:
        """The hints to render as rows, in unlock order: as posted (after an error) or stored,
        and one blank row for adding."""
        if self.is_bound and rows_posted(self.data, "hint"):
            return [*hints_from_rows(self.data), ""]
        return [*_lines(str(self["hints"].value() or "")), ""]

    def clarification_rows(self) -> list[dict[str, Any]]:
        """The rows to render: what was posted (after an error) or stored, and one blank."""
        if self.is_bound and rows_posted(self.data, "clar"):
            rows = [{"question": self.data.get(f"clar-{i}-question", ""),
                     "answer": self.data.get(f"clar-{i}-answer", ""),
                     "key": self.data.get(f"clar-{i}-key") == "on",
                     "also_text": self.data.get(f"clar-{i}-also", ""),
                     "keywords_text": self.data.get(f"clar-{i}-keywords", "")}
                    for i in range(MAX_ROWS)]  # fmt: skip
            rows = [r for r in rows if r["question"] or r["answer"]]
        else:
            rows = [
                dict(row, also_text="\n".join(row.get("also") or ()),
                     keywords_text=", ".join(row.get("keywords") or ()))
                for row in self._json_initial("clarifications")
            ]  # fmt: skip
        return [*rows, {"question": "", "answer": "", "key": False}]

    def rubric_rows(self) -> list[dict[str, Any]]:
        if self.is_bound and rows_posted(self.data, "rub"):
            rows = [{"criterion": self.data.get(f"rub-{i}-criterion", ""),
                     "weight": self.data.get(f"rub-{i}-weight", ""),
                     "strong": self.data.get(f"rub-{i}-strong", ""),
                     "levels": [self.data.get(f"rub-{i}-level-{n}", "") for n in range(1, 5)]}
                    for i in range(MAX_ROWS)]  # fmt: skip
            rows = [r for r in rows if r["criterion"] or r["strong"] or any(r["levels"])]
        else:
            rows = self._json_initial("rubric")
        blank = {"criterion": "", "weight": 1, "strong": "", "levels": ["", "", "", ""]}
        return [*[r | {"levels": (list(r.get("levels") or []) + [""] * 4)[:4]} for r in rows],
                blank]

    def _json_initial(self, name: str) -> list[dict[str, Any]]:
        text = self.initial.get(name) or "[]"
        try:
            value = json.loads(text)
        except ValueError:
            return []
        return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

    def parts(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "title": data["title"],
            "difficulty": data["difficulty"],
            "queue": data["queue"],
            "kind": data["kind"],
            "topics": tuple(t.strip() for t in data["topics"].split(",") if t.strip()),
            "starter_code": data["starter_code"],
            "reference_code": data["reference_code"],
            "driver_code": data["driver_code"],
            "checker_code": data["checker_code"],
            "support_code": data["support_code"],
            "hints": _lines(data["hints"]),
            "follow_ups": _lines(data["follow_ups"]),
            "clarifications": data["clarifications"],
            "rubric": data["rubric"],
            "reference_board": data["reference_board"],
            "grading": Grading(driver=data["driver"], entry=data["entry"],
                               compare=data["compare"], float_rel=data["float_rel"],
                               float_abs=data["float_abs"]),
        }


class KnownForm(forms.Form):
    """A known solution (leaked, posted): a Submit that matches it is flagged for reviewers."""

    file = forms.RegexField(regex=r"^known/[a-z0-9_]+\.py$", max_length=80,
                            initial="known/", help_text="known/<name>.py")
    code = forms.CharField(strip=False, widget=_CODE, max_length=MAX_SOURCE_BYTES)


class WrongForm(forms.Form):
    """A known-wrong solution: its file, the verdict it must get, and why."""

    file = forms.RegexField(regex=r"^wrong/[a-z0-9_]+\.py$", max_length=80,
                            initial="wrong/", help_text="wrong/<name>.py")
    verdict = forms.ChoiceField(choices=[(v, v) for v in VERDICT_PRIORITY if v != "AC"])
    why = forms.CharField(max_length=300)
    groups = forms.CharField(
        max_length=300, required=False, label="Must fail groups",
        help_text="hidden-test groups, comma-separated (optional)",
        widget=forms.TextInput(attrs={"placeholder": "optional: edge cases, budget"}),
    )
    says = forms.CharField(
        max_length=200, required=False, label="Its failure says",
        help_text="words in a failed hidden test's message (optional)",
        widget=forms.TextInput(attrs={"placeholder": "optional: words of the failure"}),
    )
    code = forms.CharField(strip=False, widget=_CODE, max_length=MAX_SOURCE_BYTES)

    def clean_groups(self) -> tuple[str, ...]:
        names = tuple(g.strip() for g in self.cleaned_data["groups"].split(",") if g.strip())
        if any(len(name) > 60 for name in names):
            raise forms.ValidationError("a group name has at most 60 characters")
        return names


class TestForm(forms.Form):
    """One test: input and expected as JSON, each checked on its own field."""

    __test__ = False  # not a pytest class

    name = forms.CharField(max_length=120)
    visibility = forms.ChoiceField(choices=[("public", "public"), ("hidden", "hidden")])
    tag = forms.ChoiceField(choices=[(t, t) for t in TAGS])
    group = forms.CharField(max_length=60, required=False)
    compare = forms.ChoiceField(
        choices=[("", "(the problem's)")] + [(c, c) for c in COMPARES], required=False,
        label="Compare override",
    )
    input = forms.CharField(strip=False, label="Input (JSON)", widget=forms.Textarea(
        attrs=_TEXTAREA | {"class": "studio-code", "rows": 4}))
    expected = forms.CharField(strip=False, required=False, label="Expected (JSON)",
                               widget=forms.Textarea(
                                   attrs=_TEXTAREA | {"class": "studio-code", "rows": 4}))
    fill_expected = forms.BooleanField(required=False,
                                       label="Fill expected from the validated reference")
    generate = forms.BooleanField(
        required=False, label='The input is a seeded generator template ("$ints(n, lo, hi)"…)'
    )
    seed = forms.IntegerField(required=False, min_value=0, initial=1)

    @staticmethod
    def _json(text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(f"{what} is not valid JSON: {exc}") from exc

    def clean_input(self) -> Any:
        return self._json(self.cleaned_data["input"], "the input")

    def _generated(self, data: dict[str, Any]) -> None:
        """Replace a generator template by the input it stands for (errors on the input)."""
        if not data.get("generate") or "input" not in data:
            return
        seed = data.get("seed") or 0
        try:
            template, data["input"] = data["input"], input_generate(data["input"], seed=seed)
        except GeneratorError as exc:
            self.add_error("input", f"generator: {exc}")
        else:
            # Kept with the test (issue 28.4): the package stores it, a rebuild re-runs it.
            data["generator"] = {"template": template, "seed": seed}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        self._generated(data)
        if "expected" in self.errors:
            return data
        text = data.get("expected", "")
        if data.get("fill_expected"):
            data["expected_value"] = None
        elif not text.strip():
            self.add_error("expected", "give the expected output, or fill it from the reference")
        else:
            try:
                data["expected_value"] = self._json(text, "the expected output")
            except forms.ValidationError as exc:
                self.add_error("expected", exc)
        return data

    def test(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "input": data["input"],
            "expected": data["expected_value"],
            "tag": data["tag"],
            "group": data["group"] or None,
            "compare": data["compare"] or None,
            "generator": data.get("generator"),
        }

    @classmethod
    def initial_from(cls, test: dict[str, Any], visibility: str) -> dict[str, Any]:
        generator = test.get("generator")
        if isinstance(generator, dict):  # edit the template, not its expansion
            return cls._initial(test, visibility) | {
                "input": json.dumps(generator.get("template"), ensure_ascii=False),
                "generate": True,
                "seed": generator.get("seed", 0),
            }
        return cls._initial(test, visibility)

    @classmethod
    def _initial(cls, test: dict[str, Any], visibility: str) -> dict[str, Any]:
        return {
            "name": test["name"],
            "visibility": visibility,
            "tag": test.get("tag", "correctness"),
            "group": test.get("group", ""),
            "compare": test.get("compare", ""),
            "input": json.dumps(test["input"], allow_nan=True, ensure_ascii=False),
            "expected": json.dumps(test["expected"], allow_nan=True, ensure_ascii=False),
        }
