"""Studio forms. Field checks here are about the form; whether tests make a valid package is
decided by the package reader itself (studio.services.version_create), and its errors are
put back on the field they came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django import forms

from problems.package import MAX_SOURCE_BYTES, PackageError

_TEXTAREA = {"rows": 18, "spellcheck": "false", "autocomplete": "off"}

# Which form field a package error belongs to, by the file the package reader names.
FIELD_FOR_FILE = {"public.json": "public_tests", "hidden.json": "hidden_tests"}
LIMIT_FIELDS = ("test_wall_seconds", "test_cpu_seconds", "memory_mb")


class StatementForm(forms.Form):
    statement_md = forms.CharField(
        label="Statement (Markdown)",
        strip=False,
        max_length=MAX_SOURCE_BYTES,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code"}),
    )


class TestsForm(forms.Form):
    __test__ = False  # not a pytest class

    public_tests = forms.CharField(
        label="Public tests (JSON list)",
        strip=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code"}),
    )
    hidden_tests = forms.CharField(
        label="Hidden tests (JSON list)",
        strip=False,
        widget=forms.Textarea(attrs=_TEXTAREA | {"class": "studio-code"}),
    )
    test_wall_seconds = forms.FloatField(label="Wall limit per test (s)", min_value=0.1)
    test_cpu_seconds = forms.FloatField(label="CPU limit per test (s)", min_value=0.1)
    memory_mb = forms.IntegerField(label="Memory (MB)", min_value=32)

    def limits(self) -> dict[str, Any]:
        return {name: self.cleaned_data[name] for name in LIMIT_FIELDS}

    def add_package_error(self, exc: PackageError) -> None:
        """Put the package reader's complaint on the field whose content caused it."""
        file = Path(exc.path).name
        field: str | None = FIELD_FOR_FILE.get(file)
        message = f"{exc.field}: {exc.problem}"
        if field is None and exc.field.startswith("limits."):
            name = exc.field.removeprefix("limits.")
            field = name if name in LIMIT_FIELDS else None
            message = exc.problem
        if field is None:
            message = f"{file}: {message}"
        self.add_error(field, message)
