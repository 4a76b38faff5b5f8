from django.apps import AppConfig


class LoopsConfig(AppConfig):
    name = "loops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The scorecard receivers (`loop.scorecards_complete`) and the chase's task, in web
        # and worker processes; the end of a practice round offers the next one on the session
        # page (interviews.followups: interviews never imports loops).
        from interviews import followups
        from loops import tasks  # noqa: F401
        from loops.services import (
            feedback,  # noqa: F401
            practice,
        )

        followups.register(practice.next_step)
