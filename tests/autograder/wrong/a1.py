"""Plausible wrong A1 answers: each must lose points on its own task, for every student seed."""


def _sub(old, new):
    def edit(source):
        assert old in source, f"the fixture no longer matches the solution: {old!r}"
        return source.replace(old, new)
    return edit


WRONG = {
    # task 1: the recorder
    "records every op, watched or not": ("record", {"record": _sub(
        "    if any(t._id in tape.watched for t in inputs):\n", "    if True:\n")}),
    "keeps an op only if all its inputs are watched": ("record", {"record": _sub(
        "if any(t._id in tape.watched for t in inputs)", "if all(t._id in tape.watched for t in inputs)")}),
    "does not watch the outputs of recorded ops": ("record", {"record": _sub(
        "        tape.watched.update(t._id for t in outputs)\n", "")}),
    # task 2: the order of the backward walk
    "returns the entries reversed, needed or not": ("backward_order", {"backward_order": _sub(
        "    return order[::-1]", "    return list(entries)[::-1]")}),
    "producers first (forgot to reverse)": ("backward_order", {"backward_order": _sub(
        "    return order[::-1]", "    return order")}),
    "keeps entries the target does not need": ("backward_order", {"backward_order": _sub(
        "    if target_id in producer:\n        visit(producer[target_id])\n",
        "    for e in entries:\n        visit(e)\n")}),
    # task 3: the walk
    "overwrites instead of adding contributions": ("backprop", {"backprop": _sub(
        "grads[i] = tf.add(grads[i], g) if i in grads else g", "grads[i] = g")}),
    "seeds every entry that has no gradient yet": ("backprop", {"backprop": _sub(
        "        dy = grads.get(e.output_ids[0])\n", "        dy = grads.get(e.output_ids[0], seed)\n")}),
    "follows only the first input of each op": ("backprop", {"backprop": _sub(
        "for i, g in zip(e.input_ids, vjp(e, dy)):", "for i, g in zip(e.input_ids[:1], vjp(e, dy)[:1]):")}),
    # task 4: unbroadcast
    "ignores size-1 axes (sums leading axes only)": ("unbroadcast", {"unbroadcast": _sub(
        " + [lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1]", "")}),
    "ignores dropped leading axes": ("unbroadcast", {"unbroadcast": _sub(
        "axes = list(range(lead)) + ", "axes = ")}),
    "sums size-1 axes without keeping them": ("unbroadcast", {"unbroadcast": _sub(
        "    return tf.reshape(grad, list(shape))", "    return grad")}),
    # task 5: op gradients
    "MatMul: forgets to transpose": ("grads", {"grads": _sub(
        "tf.matmul(dy, b, transpose_b=True), tf.matmul(a, dy, transpose_a=True)",
        "tf.matmul(dy, b), tf.matmul(a, dy)")}),
    "AddV2: no unbroadcast": ("grads", {"grads": _sub(
        "    return [unbroadcast(dy, _shape(x)), unbroadcast(dy, _shape(y))]", "    return [dy, dy]")}),
    "Sub: no minus sign for y": ("grads", {"grads": _sub(
        "unbroadcast(tf.negative(dy), _shape(y))", "unbroadcast(dy, _shape(y))")}),
    "Sum: reshapes as if the last axis was summed": ("grads", {"grads": _sub(
        "    kept = [1 if i in axes else n for i, n in enumerate(shape)]",
        "    kept = shape[:-1] + (1,)")}),
    # task 6: the tape
    "every tape is persistent": ("tape", {"tape": _sub(
        "        if self.used and not self.persistent:\n", "        if False:\n")}),
    "watch_accessed_variables is ignored": ("tape", {"tape": _sub(
        "        self.watch_accessed_variables = watch_accessed_variables\n", "")}),
    "unconnected sources get zeros": ("tape", {"tape": _sub(
        "        out = [grads.get(s._id) for s in srcs]",
        "        out = [grads.get(s._id, tf.zeros_like(s)) for s in srcs]")}),
}
