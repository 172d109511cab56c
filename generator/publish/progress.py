"""What a build is doing, on standard error: a live line on a terminal (phase, pages done, rate, time
left), one line per finished phase everywhere else (CI logs), nothing when quiet."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Reports phases of a build. ``live`` redraws one line in place; otherwise each phase prints one
    line when it ends. A phase with a known total (``expect``) reports rate and time left."""

    def __init__(self, stream: TextIO | None = None, *, live: bool = False, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.live = live
        self.quiet = quiet
        self.phase = ""
        self.total = 0
        self.done = 0
        self.pages = 0
        self.started = 0.0
        self._drawn = 0.0

    def start(self, phase: str, total: int = 0) -> None:
        """Begin a phase of ``total`` steps (0 when unknown)."""
        self.phase, self.total, self.done, self.pages = phase, total, 0, 0
        self.started = time.perf_counter()
        self._drawn = 0.0

    def step(self, pages: int = 0) -> None:
        """One step of the phase done, which wrote ``pages`` pages."""
        self.done += 1
        self.pages += pages
        now = time.perf_counter()
        # A redraw at most ten times a second, and always for the last step.
        if self.live and not self.quiet and (now - self._drawn > 0.1 or self.done == self.total):
            self._drawn = now
            self.stream.write("\r\033[K  " + self.line(now))
            self.stream.flush()

    def line(self, now: float) -> str:
        """The state of the phase in words: steps, pages, rate and, while it runs, the time left."""
        elapsed = max(now - self.started, 1e-9)
        parts = [f"{self.phase} {self.done:,}/{self.total:,}" if self.total else self.phase]
        if self.pages:
            parts.append(f"{self.pages:,} pages, {self.pages / elapsed:,.0f} pages/s")
        if self.total and 0 < self.done < self.total:
            parts.append(f"{elapsed / self.done * (self.total - self.done):.0f} s left")
        else:
            parts.append(f"{elapsed:.1f} s")
        return " · ".join(parts)

    def end(self) -> None:
        """Finish the phase: its final line (a new line after the live one)."""
        if self.quiet or not self.phase:
            return
        text = self.line(time.perf_counter())
        self.stream.write(("\r\033[K  " if self.live else "  ") + text + "\n")
        self.stream.flush()
        self.phase = ""
