from django.db import migrations, models


def solo_sessions_keep_their_button(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Solo practice has always let the candidate open their own hints: it still does."""
    InterviewSession = apps.get_model("interviews", "InterviewSession")
    InterviewSession.objects.filter(kind="solo").update(candidate_opens_hints=True)


class Migration(migrations.Migration):
    dependencies = [
        ("interviews", "0005_invitation_error"),
    ]

    operations = [
        migrations.AddField(
            model_name="interviewsession",
            name="candidate_opens_hints",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(solo_sessions_keep_their_button, migrations.RunPython.noop),
    ]
