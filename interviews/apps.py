from django.apps import AppConfig


class InterviewsConfig(AppConfig):
    name = "interviews"
    default_auto_field = "django.db.models.BigAutoField"
