"""``tf.debugging`` assertions raise what TF 2.21 raises: class and message, eagerly and while tracing a
``tf.function`` (where constant operands are checked at trace time, with the tensors' graph names).
Goldens: ``debugging_goldens.json``, recorded by ``record_debugging_goldens.py`` under TF."""
import json
import pathlib

import numpy as np
import pytest

import engine as tf

from debugging_cases import CASES

GOLDENS = json.loads((pathlib.Path(__file__).parent / "debugging_goldens.json").read_text())
# TF's assert_near message prints its own tensors' reprs (eagerly) or names (in a graph): the class is
# matched, the message is the engine's (a deliberate difference stated in its docstring)
CLASS_ONLY = {"near_fail"}


def _without_autograph_frames(cls, text):
    """What ``record_debugging_goldens.py`` keeps of an error raised while tracing: TF wraps it in
    "in user code:" frames (the engine too: tests/function/test_user_code_errors.py checks them);
    the goldens hold the error's own message."""
    marker = f"\n    {cls}: "
    inner = text[text.index(marker) + len(marker):]
    return "\n".join(line[4:] if line.startswith("    ") else line for line in inner.rstrip("\n").split("\n"))


def _outcome(fn, traced=False):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        text = getattr(e, "message", str(e))
        if traced and text.startswith("in user code:\n\n"):   # raised while tracing (kept as the recorder kept it)
            text = _without_autograph_frames(type(e).__name__, text)
        return [type(e).__name__, text]
    return ["ok", None if result is None else repr(type(result).__name__)]


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("name,source", CASES, ids=[c[0] for c in CASES])
def test_assertion_outcome_matches_tf(name, source, mode):
    call = eval("lambda: " + source, {"tf": tf, "np": np})   # noqa: S307  (the case table)
    fn = call if mode == "eager" else tf.function(lambda: (call(), None)[1])
    got, want = _outcome(fn, traced=mode == "function"), GOLDENS[name][mode]
    if name in CLASS_ONLY:
        assert got[0] == want[0]
    else:
        assert got == want


def test_a_failing_assertion_on_a_function_argument_fails_when_it_runs():
    @tf.function
    def check(x):
        tf.debugging.assert_positive(x, message="need > 0")
        return x + 1

    assert check(tf.constant(2.0)).numpy() == 3.0
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        check(tf.constant([-2.0, 1.5, 3.0, 4.0]))
    # TF 2.21's message (after its "Graph execution error" preamble): the data list, the first 3 values,
    # floats printed shortest, "..." for the values left out
    assert caught.value.message.startswith("assertion failed: [need > 0.  ] [Condition x > 0 did not hold "
                                           "element-wise:] [x (x:0) = ] [-2 1.5 3...]")
    assert "assert_positive/assert_less/Assert" in caught.value.message
