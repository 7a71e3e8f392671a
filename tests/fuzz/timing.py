"""Where the fuzzer's time goes, per phase: the run's summary prints it."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator


class Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + time.perf_counter() - start

    def text(self) -> str:
        return ", ".join(f"{k} {v:.0f} s" for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1]))


TIMER = Timer()
