"""The evaluation store (SQLite): every attempt kept before it is shown, history, resume, exports.

``Store.open()`` finds the database in $PASSK_DATA_DIR or the user data folder.
"""

from __future__ import annotations

from passk_tui.store.connection import DB_NAME, data_dir
from passk_tui.store.database import EvaluationSink, Store
from passk_tui.store.errors import StoreBusy, StoreUnusable, StoreWriteError, UnknownEvaluation
from passk_tui.store.models import EvaluationSummary, StoredEvaluation

__all__ = [
    "DB_NAME",
    "EvaluationSink",
    "EvaluationSummary",
    "Store",
    "StoreBusy",
    "StoreUnusable",
    "StoreWriteError",
    "StoredEvaluation",
    "UnknownEvaluation",
    "data_dir",
]
