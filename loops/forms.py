"""The loop builder's form and the loop page's reschedule form.

Times are typed in the candidate's time zone (the builder picks it; the loop keeps it), so the
day reads as the candidate will live it. The builder has ROWS round rows; a row without a
problem is not a round. Each round starts after the one before and its break, so rounds in
order never overlap; the service checks it again (and the API's explicit starts).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from django import forms
from django.conf import settings

from loops.services.scheduling import MAX_ROUNDS, RoundPlan
from problems.models import Problem

ROWS = 4
assert ROWS <= MAX_ROUNDS
# Which field a service refusal (its SessionError code) belongs to (else: above the form).
SERVICE_FIELDS = {
    "bad_email": "email",
    "bad_candidate": "candidate",
    "bad_title": "title",
    "bad_timezone": "tz",
    "bad_start": "starts_date",
    "bad_call_link": "call_link",
}


@cache
def zone_choices() -> list[tuple[str, str]]:
    names = sorted(z for z in available_timezones() if "/" in z and not z.startswith("Etc/"))
    return [("UTC", "UTC"), *[(z, z.replace("_", " ")) for z in names]]


def _minutes_field(label: str, initial: int, *, low: int) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, required=False, min_value=low, max_value=settings.ONSITE_SESSION_MAX_MINUTES,
        initial=initial, widget=forms.NumberInput(attrs={"min": str(low), "step": "5"}),
        error_messages={"invalid": "A whole number of minutes.",
                        "min_value": f"At least {low} minutes.",
                        "max_value": f"At most {settings.ONSITE_SESSION_MAX_MINUTES} minutes."})


class ZoneStart(forms.Form):
    """A date and a time in the candidate's zone (`zone` given by the view)."""

    starts_date = forms.DateField(
        label="Date", widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"}),
        error_messages={"required": "Give the day.", "invalid": "Enter a date."})
    starts_time = forms.TimeField(
        label="Time", widget=forms.TimeInput(format="%H:%M", attrs={"type": "time"}),
        error_messages={"required": "Give the time.", "invalid": "Enter a time."})

    def start_in(self, zone: str) -> datetime:
        day, time = self.cleaned_data["starts_date"], self.cleaned_data["starts_time"]
        return datetime.combine(day, time).replace(tzinfo=ZoneInfo(zone))

    def service_error(self, code: str, message: str) -> None:
        field = SERVICE_FIELDS.get(code)
        self.add_error(field if field in self.fields else None, message[:1].upper() + message[1:])


class RoundMoveForm(ZoneStart):
    minutes = _minutes_field("Minutes", 45, low=1)


class LoopBuildForm(ZoneStart):
    title = forms.CharField(
        label="Title", max_length=120,
        widget=forms.TextInput(attrs={"placeholder": "ML infrastructure onsite"}),
        error_messages={"required": "Give the loop a title."})
    email = forms.EmailField(label="Candidate's e-mail", required=False, max_length=254,
                             error_messages={"invalid": "This is not an e-mail address."})
    candidate = forms.CharField(label="Candidate's username", required=False, max_length=150)
    tz = forms.ChoiceField(label="Candidate's time zone", initial="UTC",
                           error_messages={"invalid_choice": "Choose a time zone."})
    call_link = forms.URLField(label="Video call link", required=False, max_length=500,
                               assume_scheme="https",
                               error_messages={"invalid": "An http(s) address of the meeting."})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tz = self.fields["tz"]
        assert isinstance(tz, forms.ChoiceField)
        tz.choices = zone_choices()
        offered = [(p.slug, f"{p.title} ({p.difficulty})") for p in
                   Problem.objects.offered().filter(live_version__isnull=False)
                   .order_by("title").only("slug", "title", "difficulty")]
        for n in range(1, ROWS + 1):
            self.fields[f"label_{n}"] = forms.CharField(label="Round", required=False,
                                                        max_length=60)
            self.fields[f"problem_{n}"] = forms.ChoiceField(
                label="Problem", required=False, choices=[("", "— no round —"), *offered],
                error_messages={"invalid_choice": "Choose one of the problems."})
            self.fields[f"interviewer_{n}"] = forms.CharField(label="Interviewer",
                                                              required=False, max_length=150)
            self.fields[f"co_{n}"] = forms.CharField(
                label="Co-interviewers", required=False, max_length=400,
                widget=forms.TextInput(attrs={"placeholder": "usernames, comma separated"}))
            self.fields[f"minutes_{n}"] = _minutes_field("Minutes", 45, low=1)
            self.fields[f"break_{n}"] = _minutes_field("Break after", 15, low=0)

    def rows(self) -> list[dict[str, Any]]:
        """The round rows, as the template lays them out."""
        return [{"n": n, **{name: self[f"{name}_{n}"] for name in
                            ("label", "problem", "interviewer", "co", "minutes", "break")}}
                for n in range(1, ROWS + 1)]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        used = [n for n in range(1, ROWS + 1) if data.get(f"problem_{n}")]
        if not used and not any(f"problem_{n}" in self.errors for n in range(1, ROWS + 1)):
            self.add_error("problem_1", "A loop has at least one round: choose its problem.")
        for n in used:
            if not (data.get(f"interviewer_{n}") or "").strip():
                self.add_error(f"interviewer_{n}", "Who runs this round?")
            if data.get(f"minutes_{n}") is None and f"minutes_{n}" not in self.errors:
                self.add_error(f"minutes_{n}", "Give the round's length.")
        if not data.get("email") and not data.get("candidate") and "email" not in self.errors:
            self.add_error("email", "Give the candidate's e-mail (or username).")
        return data

    def plans(self) -> list[RoundPlan]:
        """The rounds, back to back with their breaks, from the first start."""
        data = self.cleaned_data
        at = self.start_in(data["tz"])
        plans = []
        for n in range(1, ROWS + 1):
            if not data.get(f"problem_{n}"):
                continue
            length = timedelta(minutes=data[f"minutes_{n}"])
            plans.append(RoundPlan(
                problem=data[f"problem_{n}"], interviewer=data[f"interviewer_{n}"].strip(),
                start=at, duration=length, label=data.get(f"label_{n}", "").strip(),
                co_interviewers=tuple(c.strip() for c in data.get(f"co_{n}", "").split(",")
                                      if c.strip())))
            at += length + timedelta(minutes=data.get(f"break_{n}") or 0)
        return plans
