from django.apps import AppConfig


class LoopsConfig(AppConfig):
    name = "loops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The session pages show a loop round's next round and the builder's link without
        # interviews importing loops (the dependency rule): interviews.hooks.
        from interviews import hooks
        from loops import blocks

        hooks.session_block_register(blocks.round_block)
        hooks.list_block_register(blocks.builder_link)
