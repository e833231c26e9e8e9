"""An honest A1 written differently from the reference gets full marks (issue 17).

Every answer cell is replaced by code a student could write from the task texts alone: other helper
functions and names, Kahn's algorithm instead of a depth-first search for the order (which gives
another valid order), accumulation with ``+``, un-broadcasting one axis at a time, NumPy for the
axis bookkeeping, a tape that checks its arguments differently. None of the graded behaviour
differs, so every task must score its points.
"""
from autograder import grading
from autograder.assignments import a1

FAST = dict(n=4, item_timeout=6.0, total_timeout=60.0)

RECORD = '''
def record(tape, op_type, inputs, outputs, attrs):
    watched_inputs = [t for t in inputs if t._id in tape.watched]
    if not watched_inputs:
        return
    tape.entries.append(Entry(op_type, inputs, outputs, attrs))
    for t in outputs:
        tape.watched.add(t._id)
'''

BACKWARD_ORDER = '''
def backward_order(entries, target_id):
    """Kahn's algorithm on the entries the target needs: an entry is emitted once all its consumers are."""
    made_by = {}
    for e in entries:
        for o in e.output_ids:
            made_by[o] = e
    needed, todo = {}, [target_id]
    while todo:                                  # the entries the target depends on
        e = made_by.get(todo.pop())
        if e is not None and id(e) not in needed:
            needed[id(e)] = e
            todo.extend(e.input_ids)
    waiting = {k: 0 for k in needed}             # how many needed consumers each entry still waits for
    for e in needed.values():
        for p in {id(made_by[i]) for i in e.input_ids if i in made_by and id(made_by[i]) in needed}:
            waiting[p] += 1
    ready = [e for k, e in needed.items() if waiting[k] == 0]
    result = []
    while ready:
        e = ready.pop(0)
        result.append(e)
        for p in {id(made_by[i]) for i in e.input_ids if i in made_by and id(made_by[i]) in needed}:
            waiting[p] -= 1
            if waiting[p] == 0:
                ready.append(needed[p])
    return result
'''

BACKPROP = '''
def _accumulate(table, key, value):
    table[key] = value if key not in table else table[key] + value


def backprop(order, target_id, seed, vjp):
    grads = {}
    _accumulate(grads, target_id, seed)
    for entry in order:
        upstream = grads.get(entry.output_ids[0])
        if upstream is None:
            continue
        for input_id, g in zip(entry.input_ids, vjp(entry, upstream)):
            if g is not None:
                _accumulate(grads, input_id, g)
    return grads
'''

UNBROADCAST = '''
def unbroadcast(grad, shape):
    target = list(shape)
    while len(grad.shape) > len(target):          # leading axes added by broadcasting
        grad = tf.reduce_sum(grad, axis=0)
    for axis, n in enumerate(target):             # axes of size 1 that were stretched
        if n == 1 and grad.shape[axis] != 1:
            grad = tf.reduce_sum(grad, axis=axis, keepdims=True)
    return tf.reshape(grad, target)
'''

GRADS = '''
def dims(t):
    return list(t.shape.as_list())


def _two_sided(e, dx, dy_):
    a, b = e.inputs
    return [unbroadcast(dx, dims(a)), unbroadcast(dy_, dims(b))]


def add_grad(e, dy):
    return _two_sided(e, dy, dy)


def sub_grad(e, dy):
    return _two_sided(e, dy, -dy)


def mul_grad(e, dy):
    a, b = e.inputs
    return _two_sided(e, tf.multiply(dy, b), tf.multiply(a, dy))


def matmul_grad(e, dy):
    a, b = e.inputs
    return [tf.matmul(dy, tf.transpose(b)), tf.matmul(tf.transpose(a), dy)]


def exp_grad(e, dy):
    return [tf.multiply(dy, tf.exp(e.inputs[0]))]


def sum_grad(e, dy):
    x, axis = e.inputs
    rank = len(dims(x))
    summed = {int(a) % rank for a in np.reshape(axis.numpy(), [-1])}
    kept_shape = [1 if i in summed else n for i, n in enumerate(dims(x))]
    return [tf.ones_like(x) * tf.reshape(dy, kept_shape), None]


def relu_grad(e, dy):
    return [tf.where(e.inputs[0] > 0, dy, tf.zeros_like(dy))]


def neg_grad(e, dy):
    return [tf.negative(dy)]


GRADS = {"AddV2": add_grad, "Sub": sub_grad, "Mul": mul_grad, "MatMul": matmul_grad, "Exp": exp_grad,
         "Sum": sum_grad, "Relu": relu_grad, "Neg": neg_grad, "ReadVariableOp": lambda e, dy: [dy]}
'''

TAPE = '''
def vjp(entry, dy):
    return GRADS[entry.op_type](entry, dy)


class GradientTape(RecordingTape):
    def __init__(self, persistent=False, watch_accessed_variables=True):
        super().__init__()
        self.keep = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.calls = 0

    def watch(self, tensor):
        self.watched.add(tensor._id)

    def gradient(self, target, sources):
        self.calls += 1
        if self.calls > 1 and not self.keep:
            raise RuntimeError("GradientTape.gradient can only be called once on non-persistent tapes.")
        many = isinstance(sources, list)
        wanted = sources if many else [sources]
        table = backprop(backward_order(self.entries, target._id), target._id, tf.ones_like(target), vjp)
        found = [table.get(s._id) for s in wanted]
        return found if many else found[0]
'''


def test_an_honest_solution_written_differently_gets_full_marks(make_submission, tmp_path):
    path = make_submission(str(tmp_path / "honest.ipynb"), replace={
        "record": RECORD, "backward_order": BACKWARD_ORDER, "backprop": BACKPROP, "unbroadcast": UNBROADCAST,
        "grads": GRADS, "tape": TAPE})
    for seed in (1, 7):
        r = grading.grade_notebook(path, seed, **FAST)
        assert sum(r[n]["score"] for n, *_ in a1.TASKS) == 20, grading.report(r)


def test_the_variant_order_differs_from_the_reference_yet_is_accepted():
    """Kahn's order really is another order than the reference's depth-first one, on a branching graph."""
    env = {}
    exec(compile("import numpy as np\nimport engine as tf\n", "<setup>", "exec"), env)   # noqa: S102
    src = grading.source_cells("A1")
    exec(compile(src["setup"], "<setup cell>", "exec"), env)   # noqa: S102  (Entry, RecordingTape)
    reference = dict(env)
    exec(compile(src["backward_order"], "<reference>", "exec"), reference)   # noqa: S102
    variant = dict(env)
    exec(compile(BACKWARD_ORDER, "<variant>", "exec"), variant)   # noqa: S102

    class T:
        def __init__(self, i):
            self._id = i
    entry = env["Entry"]
    e, f, g = entry("E", [T(1)], [T(2)]), entry("F", [T(1)], [T(3)]), entry("G", [T(2), T(3)], [T(4)])
    ref = [x.op_type for x in reference["backward_order"]([e, f, g], 4)]
    var = [x.op_type for x in variant["backward_order"]([e, f, g], 4)]
    assert sorted(ref) == sorted(var) == ["E", "F", "G"] and ref[0] == var[0] == "G"
    assert ref != var, (ref, var)
