"""A session event for the live candidate's "I'm done" (issue 27 point 4)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('interviews', '0006_candidate_opens_hints'),
    ]

    operations = [
        migrations.AlterField(
            model_name='sessionevent',
            name='kind',
            field=models.CharField(choices=[('joined', 'Joined'), ('left', 'Left'), ('run', 'Run'), ('submit', 'Submit'), ('final_submit', 'Final Submit'), ('paste', 'Paste'), ('tab_hidden', 'Tab Hidden'), ('tab_visible', 'Tab Visible'), ('edit_refused', 'Edit Refused'), ('settings', 'Settings'), ('finished', 'Finished'), ('hint', 'Hint'), ('done', 'Done')], max_length=16),
        ),
    ]
