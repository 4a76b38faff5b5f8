"""Regrade previews move from `problems` to `studio` without losing a row.

Their tables keep the names `problems` gave them. A database made before the move already has
them (the old problems 0003 created them): only the migration state changes. A new database
gets them created here. Either way no row is copied or dropped.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def create_missing_tables(apps, schema_editor):
    existing = set(schema_editor.connection.introspection.table_names())
    for name in ("Regrade", "RegradeItem"):
        model = apps.get_model("studio", name)
        if model._meta.db_table not in existing:
            schema_editor.create_model(model)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('grading', '0002_test_groups'),
        ('problems', '0003_validation_and_regrades'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Regrade',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=10)),
                        ('message', models.CharField(blank=True, max_length=300)),
                        ('total', models.PositiveIntegerField(default=0)),
                        ('done', models.PositiveIntegerField(default=0)),
                        ('changed', models.PositiveIntegerField(default=0)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='regrades', to='problems.problemversion')),
                    ],
                    options={
                        'db_table': 'problems_regrade',
                        'ordering': ['-created_at', '-pk'],
                    },
                ),
                migrations.CreateModel(
                    name='RegradeItem',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('old_version_number', models.PositiveIntegerField()),
                        ('old_verdict', models.CharField(blank=True, max_length=3)),
                        ('old_passed', models.PositiveIntegerField(default=0)),
                        ('old_total', models.PositiveIntegerField(default=0)),
                        ('new_verdict', models.CharField(max_length=3)),
                        ('new_passed', models.PositiveIntegerField(default=0)),
                        ('new_total', models.PositiveIntegerField(default=0)),
                        ('changed', models.BooleanField(default=False)),
                        ('message', models.CharField(blank=True, max_length=300)),
                        ('regrade', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='items', to='studio.regrade')),
                        ('submission', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='grading.submission')),
                    ],
                    options={
                        'db_table': 'problems_regradeitem',
                        'ordering': ['regrade', 'submission'],
                        'constraints': [models.UniqueConstraint(fields=('regrade', 'submission'), name='unique_regrade_submission')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(create_missing_tables, migrations.RunPython.noop),
    ]
