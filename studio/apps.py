from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Their job kinds register with grading.jobs, so the sweep covers them in every worker.
        from studio.services import regrades, validations  # noqa: F401
