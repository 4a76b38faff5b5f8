"""What a web server process serves (`daphne config.web:application`): the ASGI application of
config/asgi.py, in a process made ready for it. Once everything the web serves is imported, a
full garbage collection must not walk that start-up heap while keystrokes wait (core/heap.py).

Tests and tools that only need the application import config.asgi: their own processes keep
their collector as it was.
"""

from __future__ import annotations

from config.asgi import application
from core import heap

heap.freeze_startup_heap()
heap.log_long_pauses()

__all__ = ["application"]
