"""A3's wrong implementations: plausible mistakes, each must cost points on its own task only."""


def _sub(old, new):
    def replace(source):
        assert old in source, old
        return source.replace(old, new)
    return replace


WRONG = {
    # --- leaf_key ---------------------------------------------------------------------------------------
    "tensors keyed by dtype only": ("leaf_key", {"leaf_key": _sub(
        'return ("tensor", spec.dtype, spec.shape)', 'return ("tensor", spec.dtype, tf.TensorShape(None))')}),
    "Python values keyed by type": ("leaf_key", {"leaf_key": _sub(
        'return ("value", x)', 'return ("value", type(x).__name__)')}),
    "variables keyed by identity": ("leaf_key", {"leaf_key": _sub(
        'return ("variable", x.dtype, x.shape)', 'return ("object", id(x))')}),
    "TensorSpec treated as an object": ("leaf_key", {"leaf_key": _sub(
        "    if is_tensor(x):", "    if is_tensor(x) and not isinstance(x, tf.TensorSpec):")}),
    "shape as a Python tuple": ("leaf_key", {"leaf_key": _sub(
        'return ("tensor", spec.dtype, spec.shape)', 'return ("tensor", spec.dtype, tuple(spec.shape.as_list()))')}),
    # --- trace_key --------------------------------------------------------------------------------------
    "structure forgotten": ("trace_key", {"trace_key": _sub(
        "return structure((args, kwargs)), tuple(leaves)", "return len(leaves), tuple(leaves)")}),
    "no aliasing index for variables": ("trace_key", {"trace_key": _sub(
        "key = key + (first_seen.setdefault(id(x), i),)", "pass")}),
    "aliasing by id instead of position": ("trace_key", {"trace_key": _sub(
        "key = key + (first_seen.setdefault(id(x), i),)", "key = key + (id(x),)")}),
    "keyword arguments ignored": ("trace_key", {"trace_key": _sub(
        "return structure((args, kwargs)), tuple(leaves)",
        "return structure(args), tuple(k for k, _ in zip(leaves, tf.nest.flatten(args)))")}),
    "dict keys in insertion order": ("trace_key", {"trace_key": _sub(
        "for k in sorted(x))", "for k in x)")}),
    # --- trace ------------------------------------------------------------------------------------------
    "variables captured, not inputs": ("trace", {"trace": _sub(
        "                    variable_input(graph, x)\n", "                    pass\n")}),
    "Python values become placeholders": ("trace", {"trace": _sub(
        "            if is_tensor(x):\n                spec = spec_of(x)",
        "            if not isinstance(x, tf.Variable) and isinstance(x, (tf.Tensor, np.ndarray, tf.TensorSpec, "
        "int, float)):\n                spec = spec_of(x if is_tensor(x) else tf.constant(x))")}),
    "placeholders of unknown shape": ("trace", {"trace": _sub(
        "graph.add_input(spec.dtype, spec.shape)", "graph.add_input(spec.dtype, None)")}),
    "keyword arguments dropped": ("trace", {"trace": _sub(
        "python_function(*call_args, **call_kwargs)", "python_function(*call_args)")}),
    "runs the function twice": ("trace", {"trace": _sub(
        "        graph.set_outputs(python_function(*call_args, **call_kwargs))",
        "        python_function(*call_args, **call_kwargs)   # a dry run, to see the outputs\n"
        "        graph.set_outputs(python_function(*call_args, **call_kwargs))")}),
    # --- rules ------------------------------------------------------------------------------------------
    "accepts ignores the rank": ("rules", {"rules": _sub(
        "    if shape.rank != traced.rank:\n        return False\n", "")}),
    "accepts needs equal keys": ("rules", {"rules": _sub(
        "            if a[1] != b[1] or not shape_accepts(a[2], b[2]):", "            if a != b:")}),
    "relax makes every dimension None": ("rules", {"rules": _sub(
        "[x if x == y else None for x, y in", "[None for x, y in")}),
    "relax ignores Python values": ("rules", {"rules": _sub(
        "        elif a == b:\n            leaves.append(b)\n        else:\n            return None",
        "        else:\n            leaves.append(b)")}),
    "relax keeps a dimension of a None": ("rules", {"rules": _sub(
        "[x if x == y else None for x, y in", "[x if x == y or y is None else None for x, y in")}),
    # --- tracer -----------------------------------------------------------------------------------------
    "relax returns the call's own arguments": ("tracer", {"tracer": _sub(
        "        return tf.nest.pack_sequence_as((args, kwargs), leaves)", "        return args, kwargs")}),
    "cache_key ignores keyword arguments": ("tracer", {"tracer": _sub(
        "        return trace_key(args, kwargs)", "        return trace_key(args, {})")}),
}


def _no_rules(source):
    source = source.replace("    def accepts(self, traced_key, key):", "    def _accepts(self, traced_key, key):")
    return source.replace("    def relax(self, traced_key, key, args, kwargs):",
                          "    def _relax(self, traced_key, key, args, kwargs):")


WRONG["no retracing rules (only cache_key and trace)"] = ("tracer", {"tracer": _no_rules})
