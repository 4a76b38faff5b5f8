import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("interviews", "0009_candidate_done"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ScorecardAmendment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("at", models.DateTimeField(auto_now_add=True)),
                ("changes", models.JSONField(default=list)),
                ("author", models.ForeignKey(null=True,
                                             on_delete=django.db.models.deletion.SET_NULL,
                                             related_name="+", to=settings.AUTH_USER_MODEL)),
                ("scorecard", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                                related_name="amendments",
                                                to="interviews.scorecard")),
            ],
            options={"ordering": ["at", "id"]},
        ),
    ]
