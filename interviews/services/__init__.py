"""Interview sessions: start, join, edit, run, ask, finish (see each module).

The package re-exports its public functions, so callers write `services.session_run(...)`.
"""

from __future__ import annotations

from interviews.services.activity import (
    event_record,
    hints_revealed,
    page_event_report,
    session_hint_reveal,
    session_run,
)
from interviews.services.cockpit import (
    MAX_CHAT_CHARS,
    MAX_PRIVATE_NOTE_CHARS,
    canned_answer_send,
    chat_public,
    chat_send,
    private_note_add,
    private_note_public,
    session_hint_reveal_by_interviewer,
    session_set_call_link,
)
from interviews.services.documents import (
    doc_update_store,
    doc_updates,
    doc_updates_store,
    session_code,
    session_status,
)
from interviews.services.invitations import invitation_ics, invitation_send
from interviews.services.questions import (
    ASSUMPTION_ANSWER,
    MAX_NOTE_CHARS,
    MAX_QUESTION_CHARS,
    note_add,
    note_public,
    question_answer,
    question_ask,
    question_for_interviewer,
    question_public,
    session_set_interviewer_edit,
)
from interviews.services.sessions import (
    MIN_DURATION,
    SessionError,
    call_link_check,
    demo_users_ensure,
    role_can_edit,
    session_expire_if_due,
    session_finish,
    session_finish_by,
    session_join,
    session_join_refusal,
    session_role,
    session_schedule_live,
    session_start_solo,
    sessions_expire_overdue,
)

__all__ = [
    "ASSUMPTION_ANSWER",
    "MAX_CHAT_CHARS",
    "MAX_NOTE_CHARS",
    "MAX_PRIVATE_NOTE_CHARS",
    "MAX_QUESTION_CHARS",
    "MIN_DURATION",
    "SessionError",
    "call_link_check",
    "canned_answer_send",
    "chat_public",
    "chat_send",
    "demo_users_ensure",
    "doc_update_store",
    "doc_updates",
    "doc_updates_store",
    "event_record",
    "hints_revealed",
    "invitation_ics",
    "invitation_send",
    "note_add",
    "note_public",
    "page_event_report",
    "private_note_add",
    "private_note_public",
    "question_answer",
    "question_ask",
    "question_for_interviewer",
    "question_public",
    "role_can_edit",
    "session_code",
    "session_expire_if_due",
    "session_finish",
    "session_finish_by",
    "session_hint_reveal",
    "session_hint_reveal_by_interviewer",
    "session_join",
    "session_join_refusal",
    "session_role",
    "session_run",
    "session_schedule_live",
    "session_set_call_link",
    "session_set_interviewer_edit",
    "session_start_solo",
    "session_status",
    "sessions_expire_overdue",
]
