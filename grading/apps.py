from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core import visibility
        from grading.selectors import submission_owner_viewer

        visibility.viewer_resolver_register("submission", submission_owner_viewer)
