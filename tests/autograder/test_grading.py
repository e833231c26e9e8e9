"""The grader: full marks for the solution, zero for the blank release, partial credit for bugs, and cheats don't pay."""
import time


from autograder import grading
from autograder.assignments import a1

FAST = dict(n=3, item_timeout=4.0, total_timeout=30.0)


def total(r):
    return sum(r[n]["score"] for n, *_ in a1.TASKS)


def grade(path, seed=1):
    return grading.grade_notebook(path, seed, **FAST)


def test_solution_scores_full_and_blank_zero(make_submission, tmp_path):
    r = grade(make_submission(str(tmp_path / "s.ipynb")))
    assert total(r) == 20, grading.report(r)
    assert r["_notes"] == []
    b = grade(make_submission(str(tmp_path / "b.ipynb"), blank=True))
    assert total(b) == 0
    assert "NotImplementedError" in b["record"]["messages"][0]


def test_deterministic(make_submission, tmp_path):
    p = make_submission(str(tmp_path / "s.ipynb"), replace={"grads": lambda s: s.replace(
        "return [unbroadcast(dy, _shape(x)), unbroadcast(dy, _shape(y))]", "return [dy, dy]")})
    assert grade(p) == grade(p)


def test_wrong_unbroadcast(make_submission, tmp_path):
    bug = "def unbroadcast(grad, shape):\n    return tf.reshape(tf.reduce_sum(grad), [1] * len(shape)) if shape == () else grad\n"
    r = grade(make_submission(str(tmp_path / "u.ipynb"), replace={"unbroadcast": bug}))
    assert r["unbroadcast"]["score"] < 2
    assert "unbroadcast from" in r["unbroadcast"]["messages"][0] and "expected" in r["unbroadcast"]["messages"][0]
    assert r["grads"]["score"] == 8 and r["tape"]["score"] == 4   # the grader supplies the reference unbroadcast


def test_missing_accumulation(make_submission, tmp_path):
    r = grade(make_submission(str(tmp_path / "a.ipynb"), replace={"backprop": lambda s: s.replace(
        "grads[i] = tf.add(grads[i], g) if i in grads else g", "grads[i] = g")}))
    assert r["backprop"]["score"] < 1, grading.report(r)
    assert "gradient of source" in r["backprop"]["messages"][0]
    assert total(r) == 18 + r["backprop"]["score"]


def test_wrong_matmul_gradient(make_submission, tmp_path):
    r = grade(make_submission(str(tmp_path / "m.ipynb"), replace={"grads": lambda s: s.replace(
        "tf.matmul(dy, b, transpose_b=True)", "tf.matmul(dy, tf.transpose(b)) * 2.0")}))
    assert r["grads"]["score"] == 7, grading.report(r)
    assert any(m.startswith("MatMul with inputs of shapes") for m in r["grads"]["messages"])
    assert total(r) == 19


# --- cheats: never more than the honest work, never a hang ------------------------------------------
def test_patched_comparator_gets_nothing(make_submission, tmp_path):
    cheat = "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.testing.assert_allclose = lambda *a, **k: None\n"
    r = grade(make_submission(str(tmp_path / "c.ipynb"), blank=True, extra_cells=[cheat]))
    assert total(r) == 0


def test_reading_the_source_notebook_gets_nothing(make_submission, tmp_path):
    cheat = ("import json, glob, os\n"
             "for p in ['../../../source/A1/A1.ipynb', '../solutions/A1/A1.ipynb'] + "
             "glob.glob('/work/**/solutions/A1/A1.ipynb', recursive=True) + "
             "[os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__import__('sys').executable))), "
             "'solutions/A1/A1.ipynb')]:\n"
             "    try:\n"
             "        for c in json.load(open(p))['cells']:\n"
             "            if c['cell_type'] == 'code': exec(''.join(c['source']), globals())\n"
             "    except Exception:\n"
             "        pass\n")
    r = grade(make_submission(str(tmp_path / "c.ipynb"), blank=True, extra_cells=[cheat]))
    assert total(r) == 0, grading.report(r)


def test_using_the_engines_tape_gets_nothing(make_submission, tmp_path):
    # The sandbox's engine has no autodiff (A1's ABSENT): a tape that hands the work to tf.GradientTape, or an
    # unbroadcast computed as the gradient of tf.broadcast_to, finds nothing to call there.
    cheat = ("class GradientTape(tf.GradientTape):\n    pass\n")
    r = grade(make_submission(str(tmp_path / "t.ipynb"), replace={"tape": lambda s: s + "\n" + cheat}))
    assert r["tape"]["score"] == 0 and "absent from this engine" in " ".join(r["tape"]["messages"]), grading.report(r)
    sneaky = ("def unbroadcast(grad, shape):\n"
              "    T = getattr(tf, 'Gradient' + 'Tape')\n"
              "    x = tf.zeros(list(shape), dtype=grad.dtype)\n"
              "    with T() as t:\n"
              "        t.watch(x)\n"
              "        y = tf.broadcast_to(x, grad.shape)\n"
              "    return t.gradient(y, x, output_gradients=grad)\n")
    r = grade(make_submission(str(tmp_path / "u.ipynb"), replace={"unbroadcast": sneaky}))
    assert r["unbroadcast"]["score"] == 0 and "absent" in " ".join(r["unbroadcast"]["messages"]), grading.report(r)
    assert total(r) == 18


def test_honest_code_that_a_name_check_used_to_penalise_gets_full_marks(make_submission, tmp_path):
    # getattr in the gradients cell, a local named `gradients`, super(GradientTape, self), a scratch cell that
    # compares with tf.GradientTape, and %%time at the top of an answer cell: none of it costs anything.
    # (The same variants are graded as an ordinary user in test_isolation.py.)
    from isolation_driver import HONEST_VARIANTS, SCRATCH
    p = make_submission(str(tmp_path / "h.ipynb"), extra_cells=[SCRATCH], replace=HONEST_VARIANTS)
    import nbformat
    sources = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c.source for c in nbformat.read(p, 4).cells}
    assert "gradients = backprop" in sources["tape"] and "super(GradientTape, self)" in sources["tape"]
    assert "getattr(e, 'attrs'" in sources["grads"] and sources["unbroadcast"].startswith("%%time")
    r = grade(p)
    assert total(r) == 20, grading.report(r)


def test_exit_and_sigint_proof_loop_lose_only_their_task(make_submission, tmp_path):
    exit_bug = "def unbroadcast(grad, shape):\n    import os\n    os._exit(0)\n"
    loop = ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n")
    t = time.perf_counter()
    r = grade(make_submission(str(tmp_path / "e.ipynb"), replace={"unbroadcast": exit_bug}, extra_cells=[loop]))
    assert time.perf_counter() - t < 25
    assert r["unbroadcast"]["score"] == 0 and "killed" in r["unbroadcast"]["messages"][0]
    assert total(r) == 18, grading.report(r)
    assert any("timed out" in n for n in r["_notes"])


def test_memory_hog_and_stderr_cost_nothing(make_submission, tmp_path):
    noisy = ("import warnings, sys, logging\nwarnings.warn('careful')\nprint('oops', file=sys.stderr)\n"
             "logging.getLogger().error('log line')\n"
             "try:\n    big = bytearray(8 << 30)\nexcept MemoryError:\n    print('no memory', file=sys.stderr)\n")
    r = grade(make_submission(str(tmp_path / "n.ipynb"), extra_cells=[noisy]))
    assert total(r) == 20, grading.report(r)


def test_tampered_test_cells_are_reported(make_submission, tmp_path):
    def edit(nb):
        for c in nb.cells:
            gid = (c.metadata.get("nbgrader") or {}).get("grade_id")
            if gid == "test_record":
                c.metadata["nbgrader"]["points"] = 200
            if gid == "test_unbroadcast":
                c.source = "pass"
            if gid == "test_tape":
                del c.metadata["nbgrader"]
    r = grade(make_submission(str(tmp_path / "t.ipynb"), edit=edit))
    notes = " ".join(r["_notes"])
    assert "points changed" in notes and "'test_unbroadcast' was edited" in notes and "'test_tape' is missing" in notes
    assert total(r) == 20


def test_a_tape_hidden_behind_the_engines_gets_nothing(make_submission, tmp_path):
    # A tape that wraps the engine's own (found by a dynamic lookup) would do no work of its own: in the
    # sandbox's engine the backward walk is absent, so it gets nothing.
    cheat = (
        "import engine as _e\n"
        "_Real = _e.__getattribute__('Gradient' + 'Tape')\n"
        "\n"
        "def vjp(entry, dy):\n"
        "    return GRADS[entry.op_type](entry, dy)\n"
        "\n"
        "class GradientTape(RecordingTape):\n"
        "    def __init__(self, persistent=False, watch_accessed_variables=True):\n"
        "        super().__init__()\n"
        "        self._real = _Real(persistent=persistent)\n"
        "    def __enter__(self):\n"
        "        self._real.__enter__()\n"
        "        return super().__enter__()\n"
        "    def __exit__(self, *exc):\n"
        "        super().__exit__(*exc)\n"
        "        return self._real.__exit__(*exc)\n"
        "    def watch(self, tensor):\n"
        "        self._real.watch(tensor)\n"
        "    def gradient(self, target, sources):\n"
        "        return self._real.gradient(target, sources)\n")
    r = grade(make_submission(str(tmp_path / "t.ipynb"), replace={"tape": cheat}))
    assert r["tape"]["score"] == 0, grading.report(r)
    assert "absent from this engine" in " ".join(r["tape"]["messages"]), grading.report(r)
    assert r["grads"]["score"] == 8  # the honest tasks of the same submission keep their points


def test_reference_cells_are_not_in_the_sandbox_before_their_task_is_graded(make_submission, tmp_path):
    # The reference answers the grader injects (A1 injects the reference GRADS before the tape task) reach the
    # sandbox only once every earlier task is graded: a cell that searches the process's memory for them
    # (and for files holding them) when the notebook runs finds nothing to copy.
    cheat = ("import code, gc, glob, json\n"
             "def _run(source):\n"
             "    scope = {'tf': tf, 'np': np, 'unbroadcast': unbroadcast}\n"
             "    code.InteractiveInterpreter(scope).runcode(source)\n"
             "    return scope.get('GRADS')\n"
             "def _steal():\n"
             "    for o in gc.get_objects():\n"
             "        if type(o) is list:\n"
             "            for v in o:\n"
             "                if type(v) is str and 'def matmul_grad' in v and 'transpose_b=True' in v:\n"
             "                    return _run(v)\n"
             "    for p in glob.glob('*.json'):\n"
             "        for v in json.load(open(p)).get('sources', []):\n"
             "            if 'def matmul_grad' in v:\n"
             "                return _run(v)\n"
             "STOLEN = _steal()\n"
             "if STOLEN:\n"
             "    GRADS = STOLEN\n")
    r = grade(make_submission(str(tmp_path / "c.ipynb"), replace={"grads": "GRADS = {}\n" + cheat}))
    assert r["grads"]["score"] == 0, grading.report(r)
    assert total(r) == 12, grading.report(r)
