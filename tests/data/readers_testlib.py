"""Helpers shared by ``test_readers.py`` and ``test_readers_io.py``: the goldens, value and error comparison."""
import json
import math
import os
import re

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "readers_testdata")

with open(os.path.join(HERE, "readers_golden.json")) as _f:
    G = json.load(_f)


def dec(value):
    """Golden JSON -> Python values ("b:<hex>" strings back to bytes)."""
    if isinstance(value, str) and value.startswith("b:"):
        return bytes.fromhex(value[2:])
    if isinstance(value, list):
        return [dec(v) for v in value]
    if isinstance(value, dict):
        return {k: dec(v) for k, v in value.items()}
    return value


def norm(value):
    """NaN-aware comparison form: NaN becomes the string "NaN", tuples become lists."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {k: norm(v) for k, v in value.items()}
    return value


def val(t):
    """A tensor's value as plain Python (``tolist``); strings as bytes."""
    n = t.numpy()
    return n.tolist() if hasattr(n, "tolist") else n


def elements(ds):
    return [[val(v) for v in e] if isinstance(e, tuple) else val(e) for e in ds]


def core(message, tmp=None):
    message = re.sub(r"\s*\[Op:[A-Za-z0-9_]+\]( name: .*)?$", "", message, flags=re.S)
    return message.replace(str(tmp), "<tmp>") if tmp is not None else message


def outcome(fn, tmp=None):
    """``{"value": fn()}`` or ``{"error": [class name, message]}``, as the recorder writes them."""
    try:
        return {"value": fn()}
    except Exception as e:  # noqa: BLE001
        return {"error": [type(e).__name__, core(str(e), tmp)]}


def check(golden, got):
    """Assert an outcome equals its golden (values NaN-aware, errors by class and message)."""
    golden = dec(golden)
    if "error" in golden:
        assert "error" in got, f"expected {golden['error']}, got the value {got.get('value')!r}"
        assert got["error"] == golden["error"]
    else:
        assert "value" in got, f"expected a value, got the error {got['error']}"
        assert norm(got["value"]) == norm(golden["value"])


def default(d):
    """A case's description of a default (see ``readers_cases``) as the engine's value."""
    if isinstance(d, str) and isinstance(getattr(tf, d, None), tf.DType):
        return getattr(tf, d)
    if isinstance(d, tuple) and d[0] == "empty":
        return tf.constant([], dtype=getattr(tf, d[1]))
    if isinstance(d, tuple) and d[0] == "t":
        return tf.constant(d[1], dtype=getattr(tf, d[2]))
    return d


def tensor_value(t):
    return {"dtype": t.dtype.name, "shape": list(t.shape), "value": val(t)}
