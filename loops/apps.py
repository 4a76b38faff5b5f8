from django.apps import AppConfig


class LoopsConfig(AppConfig):
    name = "loops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The scorecard receivers (`loop.scorecards_complete`) and the chase's task, in web
        # and worker processes. The session pages show a loop round's next round, a practice
        # round's next one and the builder's link without interviews importing loops (the
        # dependency rule): interviews.hooks.
        from interviews import hooks
        from loops import blocks, tasks  # noqa: F401
        from loops.services import feedback, practice  # noqa: F401

        hooks.session_block_register(blocks.round_block)
        hooks.list_block_register(blocks.builder_link)
        hooks.next_step_register(practice.next_step)
        hooks.schedule_keeper_register(blocks.round_schedule_keeper)
