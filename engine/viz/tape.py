"""The picture of a ``GradientTape``: the ops it recorded, and the backward walk over them.

Reads only what a tape offers for this: ``tape._entries`` (the recorded ops,
each with ``type``, ``inputs``, ``outputs``, ``input_ids``, ``output_ids``;
inputs/outputs are tensors, or shape-only records when the tape dropped the
value), ``tape.watched_variables()`` and ``tape._watched`` (ids of watched
tensors). See ``engine/eager/tape.py``.
"""
from .diagram import STYLES, digraph, draw_nodes, value_text

__all__ = ["draw_tape"]


def _value_text(obj):
    """A short text of a small value (at most 4 elements), or None for big values and shape-only records."""
    if getattr(obj, "_value", None) is None:   # the tape's shape-only records have no value
        return None
    return value_text(obj.numpy())


def _spec(obj):
    """``float32 (2, 3)`` for a tensor, a variable or a shape-only record."""
    return f"{obj.dtype.name} {obj.shape}"


def _describe(obj, show_values):
    """:func:`_spec` plus ``= value`` when the value is small and kept."""
    value = _value_text(obj) if show_values else None
    return _spec(obj) if value is None else f"{_spec(obj)}\\n= {value}"


def _backward_walk(entries, targets):
    """The entries ``tape.gradient(targets, ...)`` visits, in visit order (as ``imperative_grad``).

    Newest op first; an op runs when one of its outputs has a gradient, and then
    its inputs have one too.
    """
    has_grad = {getattr(t, "_id", None) for t in targets}
    walk = []
    for index in reversed(range(len(entries))):
        if any(tid in has_grad for tid in entries[index].output_ids):
            walk.append(index)
            has_grad.update(entries[index].input_ids)
    return walk


def draw_tape(tape, target=None, step=None, gradients=None, sources=None, show_values=True,
              tensors=None, max_nodes=60):
    """Draw the ops a :class:`GradientTape` recorded (forward), and optionally its backward walk.

    * Ovals are tensors: yellow for watched variables, green for watched tensors
      (both are *sources*: gradients can flow to them), grey for inputs the tape
      does not watch (constants), white for intermediate results, dashed when the
      tape dropped the value because the op's gradient needs only its shape
      (``saves_inputs``/``saves_outputs`` in ``framework/registry.py``). Small
      values are printed.
    * Boxes are ops, numbered in recording order. Variable reads are the pale
      ``ReadVariableOp`` boxes: reading a variable is an op the tape records.
    * ``target=y`` marks ``y`` (double outline) and draws the backward walk
      of ``tape.gradient(y, ...)``: the ops it visits are coloured and numbered
      in *its* order (newest first), tensors that receive a gradient get an
      orange outline, and dashed orange arrows run *backwards*, from each
      tensor's gradient into the op that produced it and on to that op's inputs.
      ``step=k`` shows the walk after ``k`` steps, the k-th op being the one
      running now; ``step=0`` is the moment ``y`` is seeded with ones.
    * ``gradients=`` prints gradients beside their sources: a list aligned with
      ``sources`` (default ``tape.watched_variables()``), for instance the result
      of ``tape.gradient(y, tape.watched_variables())``. ``sources`` also
      decides where the backward arrows go: only into tensors that depend on a
      source (default: on anything watched), as ``imperative_grad`` skips the rest.
    * ``tensors=False`` draws only ops, with each intermediate tensor's dtype and
      shape on the arrow that carries it (sources and targets stay ovals). The
      default (``None``) switches to this compact form when the full picture
      would have more than ``max_nodes`` nodes; if even that is too many, the
      middle of the tape folds into one box ("ops 30-71 folded"), so long tapes
      stay readable.

    A non-persistent tape frees its records in ``gradient()``: draw first, or use
    ``tf.GradientTape(persistent=True)``.
    """
    entries = tape._entries
    if entries is None:
        return draw_nodes({"used": {"kind": "note", "label": (
            "This tape was already used: a non-persistent tape frees its records in gradient().\\n"
            "Draw it before calling gradient(), or use tf.GradientTape(persistent=True).")}})
    variables = {v._id: v for v in tape.watched_variables()}
    producer = {tid: index for index, e in enumerate(entries) for tid in e.output_ids}

    # 1. Every tensor on the tape once, preferring a record that still holds the value.
    all_tensors = dict(variables)
    for e in entries:
        for tid, t in zip(e.input_ids + e.output_ids, e.inputs + e.outputs):
            if tid not in all_tensors or getattr(all_tensors[tid], "_value", None) is None:
                all_tensors[tid] = t
    targets = [] if target is None else list(target) if isinstance(target, (list, tuple)) else [target]
    target_ids = [getattr(t, "_id", None) for t in targets]
    for t, tid in zip(targets, target_ids):   # the caller's target still holds its value
        if tid not in all_tensors or getattr(all_tensors[tid], "_value", None) is None:
            all_tensors[tid] = t

    # 2. The backward walk: which ops have run after `step` steps, which tensors hold a gradient.
    walk = _backward_walk(entries, targets)
    done = walk if step is None else walk[:max(0, step)]
    current = done[-1] if step is not None and 0 < step <= len(walk) else None
    reached = set(target_ids)
    for index in done:
        reached.update(entries[index].input_ids)
    # Gradients flow only into tensors that depend on a source (the others are skipped:
    # `skip_input_indices` in imperative_grad), and never into integers.
    reach = {getattr(s, "_id", None) for s in sources} if sources is not None else \
        set(variables) | {tid for tid in tape._watched if tid not in producer}
    for e in entries:
        if any(tid in reach for tid in e.input_ids):
            reach.update(e.output_ids)
    flows = {tid for tid in reached if (tid in reach or tid in target_ids) and all_tensors[tid].dtype.is_floating}

    # 3. Gradients to print beside their sources.
    grad_text = {}
    if gradients is not None:
        for src, grad in zip(tape.watched_variables() if sources is None else sources, gradients):
            text = "None" if grad is None else _value_text(grad) or str(getattr(grad, "shape", type(grad).__name__))
            grad_text[getattr(src, "_id", None)] = text

    # 4. Which tensors are ovals: all of them, or (compact) only sources and targets. A compact
    #    picture still over max_nodes folds the middle of the tape into one box.
    if tensors is None:
        tensors = len(all_tensors) + len(entries) <= max_nodes
    shown = {tid for tid in all_tensors if tensors or tid in variables or tid in target_ids
             or (tid in tape._watched and tid not in producer)}
    folded = range(0)
    if not tensors and len(shown) + len(entries) > max_nodes:
        keep = max(1, (max_nodes - len(shown) - 1) // 2)
        folded = range(keep, max(keep, len(entries) - keep))

    def op_node(index):
        return "folded" if index in folded else f"op{index}"

    def node_of(tid):
        """The node a tensor's arrows start from: its oval, or (compact) the op that produced it."""
        if tid in shown:
            return f"t{tid}"
        return op_node(producer[tid]) if tid in producer else None

    g = digraph(_title(entries, targets, walk, step, current))
    for tid in shown:
        g.node(f"t{tid}", **_tensor_look(all_tensors[tid], tid, variables, producer, tape._watched,
                                         target_ids, flows, grad_text, show_values))

    drawn = set()

    def edge(tail, head, label=None, **style):
        """One arrow; arrows to or from the folded box are drawn once."""
        if tail is None or tail == head:
            return
        if "folded" in (tail, head):
            if (tail, head, bool(style)) in drawn:
                return
            drawn.add((tail, head, bool(style)))
            label = None
        g.edge(tail, head, label=label, **style)

    position = {index: k + 1 for k, index in enumerate(walk)}
    for index, e in enumerate(entries):
        me = op_node(index)
        if me == f"op{index}":
            label = f"{index + 1}. {e.type}"
            if not tensors:   # compact: the op's result inside its box
                label += "".join(f"\\n{_describe(all_tensors[tid], show_values)}" for tid in e.output_ids
                                 if tid not in shown)
            style = dict(STYLES["read" if e.type == "ReadVariableOp" else "op"])
            if index in position:
                label += f"\\nbackward step {position[index]}"
                style.update(STYLES["grad_now" if index == current else "grad_done"] if index in done else {})
            g.node(me, label=label, **style)
        # forward: inputs -> op -> outputs
        numbered = len(e.input_ids) > 1
        for k, (tid, t) in enumerate(zip(e.input_ids, e.inputs)):
            tail = node_of(tid)
            text = (f"{k}" if numbered else "") if tail is None or tail.startswith("t") else \
                (f"{k}: " if numbered else "") + _spec(t)
            edge(tail, me, label=text or None)
        for tid in e.output_ids:
            if tid in shown:
                edge(me, f"t{tid}")
        # backward: gradient arrives from the outputs, leaves towards the (floating-point) inputs
        if index in done:
            for tid in e.output_ids:
                if tid in flows:
                    edge(node_of(tid), me, **STYLES["grad_flow"])
            for tid in dict.fromkeys(e.input_ids):
                if tid in flows:
                    edge(me, node_of(tid), **STYLES["grad_flow"])
    if folded:
        g.node("folded", **_folded_look(entries, folded, done))
    return g


def _folded_look(entries, folded, done):
    """The box standing for ops ``folded`` of a long tape: how many of each type, how many walked back."""
    types = {}
    for index in folded:
        types[entries[index].type] = types.get(entries[index].type, 0) + 1
    summary = ", ".join(f"{n} {t}" for t, n in sorted(types.items(), key=lambda kv: -kv[1])[:4])
    label = f"ops {folded.start + 1}-{folded.stop} folded\\n{len(folded)} ops: {summary}"
    style = dict(STYLES["scope"])
    walked = sum(index in folded for index in done)
    if walked:
        label += f"\\n{walked} on the backward walk"
        style.update(fillcolor=STYLES["grad_done"]["fillcolor"], color=STYLES["grad_done"]["color"])
    return dict(label=label, **style)


def _title(entries, targets, walk, step, current):
    if not targets or step is None:
        return None
    if current is not None:
        return (f"backward step {step} of {len(walk)}: {entries[current].type} turns the gradient "
                f"of its output into gradients of its inputs")
    if step <= 0:
        return f"backward step 0 of {len(walk)}: the target's gradient is seeded with ones"
    return f"backward walk finished ({len(walk)} steps)"


def _tensor_look(t, tid, variables, producer, watched, target_ids, flows, grad_text, show_values):
    """Label and style of one tensor oval."""
    if tid in variables:
        kind, label = "variable", f"{t.name}\\nwatched variable\\n{_describe(t, show_values)}"
    elif tid in producer:
        kept = getattr(t, "_value", None) is not None
        kind = "tensor" if kept else "dropped"
        label = _describe(t, show_values) + ("" if kept else "\\n(value not kept)")
    elif tid in watched:
        kind, label = "source", "watched\\n" + _describe(t, show_values)
    else:
        kind, label = "constant", _describe(t, show_values)
    if tid in grad_text:
        label += f"\\ngrad = {grad_text[tid]}"
    style = dict(STYLES[kind])
    if tid in flows:
        style.update(STYLES["grad_tensor"])
    if tid in target_ids:
        label = "target (gradient seeded with ones)\\n" + label
        style.update(STYLES["target"])
    return dict(label=label, **style)
