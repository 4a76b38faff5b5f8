"""The schedule forms: a live interview's start, length, candidate and links.

A bound form that does not validate is rendered again with every value kept and each error
next to its field (the service's own refusals are put at their field too: `SERVICE_FIELDS`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from problems.models import Problem

# Which field a service refusal (its SessionError code) belongs to.
SERVICE_FIELDS = {
    "bad_email": "email",
    "bad_start": "starts_date",
    "bad_candidate": "candidate",
    "bad_duration": "minutes",
    "bad_call_link": "call_link",
    "bad_extra_time": "extra_minutes",
    "unknown_problem": "problem",
}
# A start a few minutes in the past is "now" typed slowly (the service allows the same).
PAST_SLACK = timedelta(minutes=10)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError, OSError):  # "America" is a folder: OSError
        return ZoneInfo("UTC")


class StartFields(forms.Form):
    """Date and time in the scheduler's time zone (the page sends its IANA name), and minutes;
    `cleaned_data["scheduled_for"]` is the aware start, or None for "when they join"."""

    starts_date = forms.DateField(
        label="Date", required=False,
        widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date", "id": "starts-date"}),
        error_messages={"invalid": "Enter a date."})
    starts_time = forms.TimeField(
        label="Time", required=False,
        widget=forms.TimeInput(format="%H:%M", attrs={"type": "time", "id": "starts-time"}),
        error_messages={"invalid": "Enter a time."})
    minutes = forms.FloatField(
        label="Minutes",
        widget=forms.NumberInput(attrs={"min": "0.2", "step": "any", "id": "minutes"}),
        error_messages={"required": "Give the length in minutes.",
                        "invalid": "The length is a number of minutes."})
    tz = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput(), initial="UTC")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["minutes"].initial = settings.ONSITE_SESSION_DEFAULT_MINUTES
        self.fields["minutes"].widget.attrs["max"] = str(settings.ONSITE_SESSION_MAX_MINUTES)

    def clean_minutes(self) -> float:
        minutes = self.cleaned_data["minutes"]
        longest = settings.ONSITE_SESSION_MAX_MINUTES
        if minutes != minutes or not 10 / 60 <= minutes <= longest:  # NaN, or out of range
            raise forms.ValidationError(f"Between 10 seconds and {longest} minutes.")
        return float(minutes)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        day, time = data.get("starts_date"), data.get("starts_time")
        data["scheduled_for"] = None
        if "starts_date" in self.errors or "starts_time" in self.errors:
            return data
        if day and not time:
            self.add_error("starts_time", "Give a time too, or clear the date.")
        elif time and not day:
            self.add_error("starts_date", "Give a date too, or clear the time.")
        elif day and time:
            start = datetime.combine(day, time).replace(tzinfo=_zone(data.get("tz", "")))
            if start < timezone.now() - PAST_SLACK:
                self.add_error("starts_date", "This start is in the past.")
            else:
                data["scheduled_for"] = start
        return data

    def add_error(self, field: str | None, error: Any) -> None:
        super().add_error(field, error)
        # Screen readers hear which input is wrong and its message (the template's id).
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs.update(
                    {"aria-invalid": "true", "aria-describedby": f"error-{name}"})

    def duration(self) -> timedelta:
        return timedelta(minutes=self.cleaned_data["minutes"])

    def service_error(self, code: str, message: str) -> None:
        """A refusal of the service, at its field (or above the form)."""
        field = SERVICE_FIELDS.get(code)
        self.add_error(field if field in self.fields else None, message[:1].upper() + message[1:])


class ScheduleForm(StartFields):
    problem = forms.ChoiceField(label="Problem", error_messages={
        "required": "Choose a problem.", "invalid_choice": "Choose one of the problems."})
    email = forms.EmailField(
        label="Candidate's e-mail", required=False, max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "off", "id": "email"}),
        error_messages={"invalid": "This is not an e-mail address."})
    candidate = forms.CharField(
        label="Candidate's username", required=False, max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "off", "id": "candidate"}))
    call_link = forms.URLField(
        label="Video call link", required=False, max_length=500, assume_scheme="https",
        widget=forms.URLInput(attrs={"placeholder": "https://meet.example.com/…",
                                     "autocomplete": "off", "id": "call-link-input"}),
        error_messages={"invalid": "An http(s) address of the meeting."})
    interviewer_can_edit = forms.BooleanField(required=False)
    candidate_opens_hints = forms.BooleanField(required=False)
    # An accommodation: more time on the candidate's clock (seen by the candidate, you and
    # admins; the other interviewers see only the clock).
    extra_minutes = forms.IntegerField(
        label="Extra time for the candidate (minutes)", required=False, min_value=0,
        max_value=120,
        widget=forms.NumberInput(attrs={"min": "0", "max": "120", "step": "1",
                                        "id": "extra-minutes"}),
        error_messages={"invalid": "A whole number of minutes.",
                        "min_value": "Between 0 and 120 minutes.",
                        "max_value": "Between 0 and 120 minutes."})

    field_order = ["problem", "starts_date", "starts_time", "minutes", "extra_minutes", "tz",
                   "email", "candidate", "call_link"]

    def extra_time(self) -> timedelta:
        return timedelta(minutes=self.cleaned_data.get("extra_minutes") or 0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offered = (Problem.objects.offered().filter(live_version__isnull=False)
                   .order_by("title").only("slug", "title", "difficulty"))
        choice = forms.ChoiceField
        assert isinstance(self.fields["problem"], choice)
        self.fields["problem"].choices = [
            (p.slug, f"{p.title} ({p.difficulty})") for p in offered]

    def clean_candidate(self) -> Any:
        username = self.cleaned_data["candidate"].strip()
        if not username:
            return None
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise forms.ValidationError(f"No user is named {username!r}.")
        return user

    def clean_call_link(self) -> str:
        link = str(self.cleaned_data["call_link"]).strip()
        if link and not link.lower().startswith(("http://", "https://")):
            raise forms.ValidationError("An http(s) address of the meeting.")
        return link


class RescheduleForm(StartFields):
    """A scheduled session's new start and length."""
