from django.apps import AppConfig


class LoopsConfig(AppConfig):
    name = "loops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The end of a practice round offers the next one on the session page
        # (interviews.followups: interviews never imports loops).
        from interviews import followups
        from loops.services import practice

        followups.register(practice.next_step)
