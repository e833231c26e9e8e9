"""``tf.keras.utils.Progbar``: the live progress bar ``fit`` prints with ``verbose=1``.

With ``verbose=1`` every update rewrites the current line: backspaces erase the
previous text and ``\\r`` returns to the start of the line, then the bar, the
estimated time left (ETA) or elapsed time, the time per step and the metrics are
printed; at the end (``finalize``) a newline keeps the last state. Updates come at
most every ``interval`` seconds (0.05), so printing never dominates training.
With ``verbose=2`` only the final line of each epoch is printed, without bar.
This mirrors Keras 3's ``Progbar`` (same layout, same colours).
"""
import math
import sys
import time

import numpy as np

__all__ = ["Progbar"]


def print_msg(message, line_break=True):
    """Write to stdout and flush (the bar must appear immediately)."""
    sys.stdout.write(message + ("\n" if line_break else ""))
    sys.stdout.flush()


class Progbar:
    """A progress bar over ``target`` steps (``None`` if unknown: a counter is shown instead)."""

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        # Metrics listed here are shown as given (our logs are already running means); others are averaged.
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else set()
        self._values = {}
        self._values_order = []
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def update(self, current, values=None, finalize=None):
        """Show step ``current`` with ``values``, a list of ``(name, value)``."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k in self.stateful_metrics or finalize:
                self._values[k] = [v, 1]
            else:
                weight = max(current - self._seen_so_far, 1)
                total, count = self._values.get(k, [0.0, 0])
                self._values[k] = [total + v * weight, count + weight]
        self._seen_so_far = current
        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            message = "\b" * self._prev_total_width + "\r"
            special = 0
            if self.target is not None and self.target > 0:
                digits = int(math.log10(self.target)) + 1
                bar = f"\x1b[1m{current:{digits}d}/{self.target}\x1b[0m "
                special += 8
                filled = int(self.width * current / self.target)
                if filled > 0:
                    bar += f"\x1b[32m{'━' * filled}\x1b[0m"
                    special += 9
                bar += f"\x1b[37m{'━' * (self.width - filled)}\x1b[0m"
                special += 9
            else:
                bar = f"{current:7d}/Unknown"
            message += bar
            if self.target is not None and self.target > 0 and not finalize:
                info = f" \x1b[1m{_format_eta(time_per_unit * (self.target - current))}\x1b[0m"
            else:
                info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
            special += 8
            info += _format_time(time_per_unit, self.unit_name)
            info += self._format_values()
            total_width = len(bar) + len(info) - special
            if self._prev_total_width > total_width:
                info += " " * (self._prev_total_width - total_width)
            if finalize:
                info += "\n"
            print_msg(message + info, line_break=False)
            self._prev_total_width = total_width
        elif self.verbose == 2 and finalize and self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            info = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s -"
            info += _format_time(time_per_unit, self.unit_name)
            print_msg(info + self._format_values())
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _format_values(self):
        out = ""
        for k in self._values_order:
            total, count = self._values[k]
            avg = float(np.mean(total)) / max(1, count)
            out += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"
        return out

    def _estimate_step_duration(self, current, now):
        """Seconds per step, ignoring the first step (it includes tracing) once there are more."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit


def _format_eta(eta):
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


def _format_time(time_per_unit, unit_name):
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1000:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1e6:.0f}us/{unit_name}"
