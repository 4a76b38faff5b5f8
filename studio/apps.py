from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from problems.services import PACKAGE_CHECKS

        # Their job kinds register with grading.jobs, so the sweep covers them in every worker.
        from studio.services import regrades, validations  # noqa: F401

        # loadproblems checks each test's input against its driver (problems imports no studio).
        from studio.services.inputcheck import package_load_check

        if package_load_check not in PACKAGE_CHECKS:
            PACKAGE_CHECKS.append(package_load_check)
