from django.apps import AppConfig


class InterviewsConfig(AppConfig):
    name = "interviews"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The webhook sender's signal receivers and Celery task, in web and worker processes.
        from interviews.review import access, webhooks  # noqa: F401

        access.resolvers_register()
