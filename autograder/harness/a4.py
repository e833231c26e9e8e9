"""A4's harness (sandbox side): trace generated programs through the student's AutoGraph pieces.

A case is one small program (``def prog(x, n, k): ...`` with ``if``/``while``/``for ... in range``,
``break``/``continue``) and a list of *runs*, each a way to call it: traced by ``tf.function`` with
some arguments tensors and others Python values, or called eagerly. Each run gives the program's
outputs and, for a traced run, the number of ``If`` and ``While`` ops in its graph (sub-graphs
included), or ``"error:<class>"``.

* The runtime tasks (``if_stmt``, ``loops``) get the program already converted (by the reference
  converter, in the grader process: ``case["converted"]``), compiled with ``ag__`` = the notebook's
  ``ag`` (whose operators are the student's), and traced with ``autograph=False``.
* The converter tasks get the original source, convert it with ``tf.autograph.to_graph`` inside
  ``engine.seams.using(autograph=MyAutoGraph)`` (the student's converter, plugged into the engine), and
  trace that with ``tf.function`` in the same block.

The grader process runs the same programs with the pristine engine (its own AutoGraph) through
:func:`reference_runs`.
"""
import itertools
import linecache

from .common import decode, encode  # noqa: F401 - decode: for the grader side

_files = itertools.count()


def load_program(tf, source, extra=None, name="prog"):
    """The function ``name`` defined by ``source``, with its source findable (``inspect.getsource``)."""
    filename = f"<a4 program {next(_files)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "a4_programs", "tf": tf}
    namespace.update(extra or {})
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the grader's own generated programs
    return namespace[name]


def make_args(tf, spec):
    """``[["t", "float32", 1.5], ["py", None, 3]]`` -> ``[tf.constant(1.5), 3]``."""
    return [tf.constant(value, dtype=getattr(tf, dtype)) if kind == "t" else value for kind, dtype, value in spec]


def count_ops(graph, counts=None):
    """``{"If": ..., "While": ...}``: If/StatelessIf and While/StatelessWhile ops, sub-graphs included."""
    counts = {"If": 0, "While": 0} if counts is None else counts
    for op in graph.get_operations():
        if op.type in ("If", "StatelessIf"):
            counts["If"] += 1
            for branch in ("then_branch", "else_branch"):
                count_ops(op.attrs[branch].graph, counts)
        elif op.type in ("While", "StatelessWhile"):
            counts["While"] += 1
            for branch in ("cond", "body"):
                count_ops(op.attrs[branch].graph, counts)
    return counts


def encode_outputs(values):
    values = list(values) if isinstance(values, (tuple, list)) else [values]
    return [{"dtype": v.dtype.name if hasattr(v, "numpy") and hasattr(v, "dtype") else None, "value": encode(v)}
            for v in values]


def _attempt(f):
    try:
        return f()
    except Exception as exc:  # noqa: BLE001 - the class name is the observable behaviour
        return "error:" + type(exc).__name__


def run_all(tf, case, traced, eager):
    """One result per run of ``case``: ``traced(args)`` -> (outputs, graph); ``eager(args)`` -> outputs.

    The graph optimizer is off meanwhile (on both sides): the ops are counted in the traced graph, and
    compiling the tiny graphs without it is more than twice as fast.
    """
    before = tf.config.optimizer.get_experimental_options().get("disable_meta_optimizer", False)
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        return [_attempt(lambda r=r: _one_run(tf, r, traced, eager)) for r in case["runs"]]
    finally:
        tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": before})


def _one_run(tf, r, traced, eager):
    args = make_args(tf, r["args"])
    if r["mode"] == "eager":
        return {"out": encode_outputs(eager(args))}
    out, graph = traced(args)
    counts = count_ops(graph)
    return {"out": encode_outputs(out), "ops": [counts["If"], counts["While"]]}


def _traced_by(tf, function, **options):
    """``traced(args)`` for the runs of one case: one ``tf.function`` (one conversion), a trace per signature."""
    shared = []

    def traced(args):
        if not shared:
            shared.append(tf.function(function, **options))
        out = shared[0](*args)
        return out, shared[0].get_concrete_function(*args).graph
    return traced


def reference_runs(tf, case):
    """The pristine engine (grader process): its own AutoGraph, and the original program run eagerly."""
    prog = load_program(tf, case["source"])
    return run_all(tf, case, _traced_by(tf, prog), lambda args: prog(*args))


def h_runtime(tf, ctx, ns, case, state):
    """Tasks 1-2: the program converted beforehand, run on the notebook's ``ag`` (the student's operators)."""
    try:
        prog = load_program(tf, case["converted"], {"ag__": ns["ag"]})
    except Exception as exc:  # noqa: BLE001
        return ["error:" + type(exc).__name__] * len(case["runs"])
    return run_all(tf, case, _traced_by(tf, prog, autograph=False), lambda args: prog(*args))


def h_converter(tf, ctx, ns, case, state):
    """Tasks 3-5: the original program, converted once by the notebook's ``MyAutoGraph`` through the seam
    (``tf.autograph.to_graph`` inside ``seams.using``), then traced by ``tf.function`` in the same block (which
    does not convert again what a converter produced) and called eagerly."""
    from engine import seams
    prog = load_program(tf, case["source"])
    converter = ns.get("MyAutoGraph")
    try:
        with seams.using(autograph=converter):
            converted = tf.autograph.to_graph(prog)
    except Exception as exc:  # noqa: BLE001 - the converter itself failed: every run fails alike
        return ["error:" + type(exc).__name__] * len(case["runs"])
    in_graph = _traced_by(tf, converted)

    def traced(args):
        with seams.using(autograph=converter):
            return in_graph(args)
    return run_all(tf, case, traced, lambda args: converted(*args))


HARNESS = {"if_stmt": h_runtime, "loops": h_runtime, "convert_if": h_converter, "convert_loops": h_converter,
           "lower_jumps": h_converter}
