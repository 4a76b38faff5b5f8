from django.apps import AppConfig


class LoopsConfig(AppConfig):
    name = "loops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The scorecard receivers (`loop.scorecards_complete`) and the chase's task, in web
        # and worker processes.
        from loops import tasks  # noqa: F401
        from loops.services import feedback  # noqa: F401
