"""What a running reference instance is made of, and how it stops: its control API, its peer (a server or a
client, each with ``stop()``), its SQLite store and, when it made one, a temporary directory."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

__all__ = ["ReferenceHandle"]


class ReferenceHandle:
    """``control_url``; ``stop()`` bounded and idempotent: control API, peer, store, temporary directory, in order."""

    def __init__(self, peer: Any, control: Any | None, store: Any, temp_dir: Path | None) -> None:
        self._peer, self.control, self.store, self._temp_dir = peer, control, store, temp_dir
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def control_url(self) -> str | None:
        return self.control.url if self.control is not None else None

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self.control is not None:
            self.control.stop()
        self._peer.stop()
        self.store.close()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
