"""Record TF 2.21's ``tf.debugging`` assertion errors into ``debugging_goldens.json`` (run with a TF venv's
python): for each case, what an eager call raises and what the same call inside ``tf.function`` raises."""
import json
import pathlib

import numpy as np
import tensorflow as tf

from debugging_cases import CASES


def _without_autograph_frames(cls, text):
    """TF wraps an error raised while tracing in "in user code:" frames; keep the error's own message."""
    if not text.startswith("in user code:"):
        return text
    marker = f"\n    {cls}: "
    inner = text[text.index(marker) + len(marker):]
    return "\n".join(line[4:] if line.startswith("    ") else line for line in inner.rstrip("\n").split("\n"))


def outcome(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001
        text = str(e) if not hasattr(e, "message") else e.message
        return [type(e).__name__, _without_autograph_frames(type(e).__name__, text)]
    return ["ok", None if result is None else repr(type(result).__name__)]


if __name__ == "__main__":
    goldens = {}
    for name, source in CASES:
        call = eval("lambda: " + source, {"tf": tf, "np": np})   # noqa: S307  (our own case table)
        traced = tf.function(lambda: (call(), None)[1])   # (a function returns no Operation)
        goldens[name] = {"eager": outcome(call), "function": outcome(traced)}
    (pathlib.Path(__file__).parent / "debugging_goldens.json").write_text(json.dumps(goldens, indent=1))
