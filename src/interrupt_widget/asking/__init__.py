"""Asking a person: a run's open questions and the answers to them, the in-kernel
conversation, the run-ask-resume loop, calls in doubt to settle, and the headless
answerers.

Every view of a question (the picker, a batch row, the inbox, the server's sidebar)
and every driver of a run (the chat, a batch) imports from here; nothing here shows a
widget. Users import from `interrupt_widget` (`responders` is public there).

- `open_questions.py`: `OpenQuestions`, checking, recording, expiring and submitting
  answers once; `QuestionsView`, a view of them (a picker, a batch row) and what it offers
  an answerer; the words a view shows for an answer and for a refusal.
- `expiry.py`: `ExpiryTimer`, the one timer a view keeps to give its questions their
  default answers on time.
- `thread.py`: `ConversationThread`, the in-kernel conversation: messages, open
  interrupts, one task per run, and `RunOutcome`, how a run ended.
- `loop.py`: `converse`, the run-ask-resume loop every driver uses, and `noted`, the
  decisions after a run.
- `settling.py`: what a chat or a batch row offers for an approved call left in doubt,
  and the answer a person's word on it gives.
- `responders.py`: headless answerers (`approve_all`, `replay`, ...).
- `askers.py`: every chat and batch alive in the process, for views across them.
"""

from __future__ import annotations

from interrupt_widget.asking import askers, responders
from interrupt_widget.asking.expiry import ExpiryTimer
from interrupt_widget.asking.loop import Step, converse, last_markers, noted
from interrupt_widget.asking.open_questions import (
    ExpiryAnswer,
    OpenQuestions,
    QuestionsView,
    answer_refusal,
    answer_words,
    in_doubt_refusal,
)
from interrupt_widget.asking.responders import Responder
from interrupt_widget.asking.settling import (
    SETTLE_ON_ITS_CARD,
    HoldsLedger,
    Offer,
    doubt_ledger,
    doubts_of,
    offer_to_settle,
)
from interrupt_widget.asking.thread import ConversationThread, OutcomeKind, RunOutcome

__all__ = [
    "SETTLE_ON_ITS_CARD",
    "ConversationThread",
    "ExpiryAnswer",
    "ExpiryTimer",
    "HoldsLedger",
    "Offer",
    "OpenQuestions",
    "OutcomeKind",
    "QuestionsView",
    "Responder",
    "RunOutcome",
    "Step",
    "answer_refusal",
    "answer_words",
    "askers",
    "converse",
    "doubt_ledger",
    "doubts_of",
    "in_doubt_refusal",
    "last_markers",
    "noted",
    "offer_to_settle",
    "responders",
]
