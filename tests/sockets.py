"""Running a socket scenario in a test: one event loop and one channel layer per scenario.

The channel layer is a process-wide singleton, and channels-redis ties its receive lock to the
event loop that first waits on it. Every `async_to_sync` call runs on a loop of its own, so a
consumer left waiting when one scenario's loop ends would break the next scenario's sockets
("bound to a different event loop"), in this test or a stranger later in the worker. Each
scenario therefore starts on a fresh layer, and one that leaves a receive pending fails by
name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import async_to_sync


def fresh_layers() -> None:
    """Forget every channel layer instance; the next use builds one on the running loop."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()


def waiting_layers() -> list[str]:
    """The aliases of layers that still have a consumer waiting to receive."""
    from channels.layers import channel_layers

    return [
        alias
        for alias, layer in channel_layers.backends.items()
        if getattr(layer, "receive_count", 0)
    ]


def run_scenario(scenario: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
    """Run an async socket scenario to its end on its own loop and a fresh channel layer."""
    fresh_layers()
    try:
        result = async_to_sync(scenario)(*args, **kwargs)
        left = waiting_layers()
        if left:
            raise AssertionError(
                f"{getattr(scenario, '__qualname__', scenario)} left a consumer waiting on "
                f"channel layer {left}: disconnect every communicator (and wait for it) "
                "before the scenario ends"
            )
        return result
    finally:
        fresh_layers()


class WithUser:
    """ASGI middleware that puts a given user into the scope (what AuthMiddleware would do)."""

    def __init__(self, app: Any, user: Any) -> None:
        self.app, self.user = app, user

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.app(dict(scope, user=self.user), receive, send)
