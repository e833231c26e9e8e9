"""The graph optimizer: the engine's Grappler.

Before a graph runs (``Session.run``, ``tf.function``), TensorFlow hands a copy
of the needed subgraph to *Grappler*, a pipeline of rewriting passes, and runs
what comes out. The engine does the same, on a small IR (``ir.py``):

====================  =====================================================  ===============================
pass (module)         what it does                                           switched off by
====================  =====================================================  ===============================
``pruning``           drop Identity-like nodes and nodes nobody needs        ``disable_model_pruning``
``constant_folding``  compute constant subgraphs once, at compile time       ``constant_folding``
``arithmetic``        ``x * 1 -> x``, double transposes, ...                 ``arithmetic_optimization``
``cse``               compute each distinct expression once                  ``common_subgraph_elimination``
``fusion``            MatMul+BiasAdd+Relu, elementwise chains -> one kernel  ``remapping``
``memory_plan``       free each value after its last reader                  ``memory_optimization``
====================  =====================================================  ===============================

(options: ``tf.config.optimizer.set_experimental_options``, ``engine/config_optimizer.py``.)

The first four run in rounds (at most two, as Grappler's default) because one
enables another: folding creates constants that CSE merges, simplification
exposes dead nodes. Fusion runs once, at the end, on the simplified graph.

Every pass writes what it changed into a :class:`Report`; ``print(plan.report)``
after ``Session.run`` shows it. The contract of every pass: the optimized
program computes the same fetched values as the original (the tests check it on
random graphs), stateful nodes are never folded, merged or removed, control
dependencies keep holding, and fed tensors are never looked through.

    program = ir.from_operations(ops, feeds, fetches, targets)
    optimized, report = optimize(program)       # the input program is not modified

Writing a pass: the ``graph_pass`` seam
---------------------------------------
Grappler takes custom passes too: C++ ``CustomGraphOptimizer`` classes,
registered with ``REGISTER_GRAPH_OPTIMIZER`` and named in the session config's
``RewriterConfig.custom_optimizers``. Here a pass is any object with

``name``
    a string (a module may spell it ``NAME``, as the reference passes do).
``run(program, report)``
    rewrites ``program`` and returns it (or a new :class:`Program`; ``None``
    means "the same program, rewritten in place").

A class works too: the optimizer builds one (no arguments) each time it
optimizes a graph. Inside ``with engine.seams.using(graph_pass=MyPass):``
every graph the optimizer compiles (``Session.run``, ``tf.function`` and its
gradients, ``tf.data`` functions) runs ``MyPass``:

* a pass whose ``name`` is a reference pass's (the first column of the table
  above: ``"model_pruning"``, ``"constant_folding"``,
  ``"arithmetic_optimization"``, ``"common_subgraph_elimination"``,
  ``"remapping"``) *replaces* that pass: it runs where and when that pass
  would (in each round, behind the same switch), and the reference does not;
* any other pass is *added*: it runs once, after the rounds, before fusion
  and the memory plan (so it sees the simplified graph, and fusion sees its
  result; Grappler runs custom passes after its own in each round instead).
  Passes added by nested blocks run outermost first.

After each seam pass the program is checked (:meth:`Program.check`), so a
pass that breaks it is named. Compiled plans are cached: entering or leaving
the block makes every plan compile again on its next call, so a plan is never
run with passes other than those in force.

What a pass may use (``ir.py``):

* ``program.nodes`` (in execution order; assign a new list to reorder or
  drop), ``program.args`` (the ``_Arg`` of each fed tensor), ``fetches``,
  ``targets``; ``program.uses()``, ``consumers()``, ``control_outputs()``;
* a node's ``name``, ``type``, ``inputs`` (``Value`` s: ``.node``,
  ``.index``, ``.dtype``, ``.shape``), ``control_inputs``, ``attrs``,
  ``outputs``, ``device``, and ``op_def``: its registry row (its kernel,
  ``op_def.kernel("numpy")``, and traits: ``commutative``, ``elementwise``,
  ...); ``node.stateful``: never fold, merge or remove those (nor feed points);
* ``ir.Node(...)`` to make a node, ``ir.const_value(value)`` to read a
  constant, and :class:`ir.Rewriter` to replace values while walking forward
  (``visit``, ``emit``, ``replace``, ``replace_node``, ``finish``), as the
  reference passes do;
* ``report.add(name, message)`` to say what it changed (``report.options``:
  the switches in force).
"""
from ... import config_optimizer, seams
from ..registry import _GENERATION
from . import arithmetic, constant_folding, cse, fusion, ir, memory_plan, pruning
from .ir import Program, from_operations

__all__ = ["optimize", "Report", "Program", "from_operations", "GRAPH_PASS_SEAM"]

ROUNDS = 2

# The reference passes, in pipeline order; each one's NAME is also the option that switches it.
_ROUND_PASSES = (pruning, constant_folding, arithmetic, cse)
_REFERENCE = {p.NAME: p for p in _ROUND_PASSES + (fusion,)}


class Report:
    """What each pass changed: ``entries`` is a list of ``(pass name, description)``."""

    def __init__(self, options):
        self.options = dict(options)
        self.entries = []
        self.nodes_before = None
        self.nodes_after = None
        self.memory = None

    def add(self, pass_name, message):
        self.entries.append((pass_name, message))

    def counts(self):
        """``{pass name: number of changes}``."""
        out = {}
        for name, _ in self.entries:
            out[name] = out.get(name, 0) + 1
        return out

    def changes(self, pass_name):
        return [m for name, m in self.entries if name == pass_name]

    def summary(self):
        counts = ", ".join(f"{name} {n}" for name, n in self.counts().items()) or "no changes"
        return f"graph optimizer: {self.nodes_before} -> {self.nodes_after} nodes ({counts})"

    def __str__(self):
        lines = [self.summary()]
        off = [k for k, v in self.options.items() if v is False]
        if off:
            lines.append(f"  switched off: {', '.join(off)}")
        current = None
        for name, message in self.entries:
            if name != current:
                lines.append(f"  {name}:")
                current = name
            lines.append(f"    - {message}")
        if self.memory is not None:
            lines.append(f"  memory: {self.memory.describe()}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<Report: {self.summary()}>"


def optimize(program, options=None):
    """Optimize a copy of ``program``; returns ``(new program, Report)``.

    ``options``: a dict of effective options (``config_optimizer.effective_options()``);
    ``None`` reads the current ``tf.config.optimizer`` settings. The passes are the
    reference ones, as the ``graph_pass`` seam replaces or adds to them now.
    """
    if options is None or "model_pruning" not in options:
        options = config_optimizer.effective_options(options)
    report = Report({k: v for k, v in options.items() if k != "min_graph_nodes"})
    report.nodes_before = len(program.nodes)
    peak_before, _ = memory_plan.peak_bytes(program, release=False)
    program = program.copy()
    replacing, added = _seam_passes()
    if len(program.nodes) >= options.get("min_graph_nodes", 0):
        for _ in range(ROUNDS):
            seen = len(report.entries)
            for reference in _ROUND_PASSES:
                if options[reference.NAME]:
                    program = _run(replacing.get(reference.NAME), reference, program, report)
            if len(report.entries) == seen:
                break
        for graph_pass in added:
            program = _run(graph_pass, None, program, report)
        if options["remapping"]:
            program = _run(replacing.get(fusion.NAME), fusion, program, report,
                           elementwise=options["elementwise_fusion"], reuse_buffers=options["memory_optimization"])
        if options["model_pruning"]:
            program = _run(replacing.get(pruning.NAME), pruning, program, report)
    program.check()
    report.nodes_after = len(program.nodes)
    report.memory = memory_plan.plan_memory(program, peak_before, release=options["memory_optimization"])
    return program, report


# --------------------------------------------------------------------------------------
# The graph_pass seam
# --------------------------------------------------------------------------------------
def pass_name(graph_pass):
    """A pass's ``name`` (or ``NAME``, as the reference pass modules spell it); TypeError if it has none."""
    name = getattr(graph_pass, "name", None) or getattr(graph_pass, "NAME", None)
    if not isinstance(name, str):
        label = getattr(graph_pass, "__name__", type(graph_pass).__name__)
        raise TypeError(f"{label} cannot fill the 'graph_pass' seam: it has no name (a string attribute `name`, "
                        f"equal to a reference pass's to replace it). See engine.seams.seam('graph_pass').doc.")
    return name


def _seam_passes():
    """``({reference name: replacing pass}, [added passes])`` from the ``graph_pass`` seam now.

    A class is built here (once per optimization). For one name, the innermost block's pass wins.
    """
    replacing, added = {}, []
    for graph_pass in GRAPH_PASS_SEAM.current:
        if isinstance(graph_pass, type):
            graph_pass = graph_pass()
        name = pass_name(graph_pass)
        if name in _REFERENCE:
            replacing[name] = graph_pass
        elif name == memory_plan.NAME:
            raise ValueError(f"A graph pass cannot replace {name!r}: the memory plan is not a rewrite of the "
                             f"program but what the plan's generated code reads (memory_plan.plan_memory).")
        else:
            added.append(graph_pass)
    return replacing, added


def _run(graph_pass, reference, program, report, **reference_options):
    """Run one pass: the seam's ``graph_pass`` if there is one (then check its result), else ``reference``."""
    if graph_pass is None:
        reference.run(program, report, **reference_options)
        return program
    result = graph_pass.run(program, report)
    if result is None:
        result = program
    name = pass_name(graph_pass)
    if not isinstance(result, Program):
        raise TypeError(f"Graph pass {name!r} returned {type(result).__name__}: run(program, report) returns "
                        f"the program (or None, for the program it rewrote in place)")
    try:
        result.check()
    except AssertionError as error:
        raise AssertionError(f"Graph pass {name!r} left a malformed program: {error}") from None
    return result


def _passes_changed():
    # Compiled plans remember the registry generation they were compiled in and compile again when it moved on
    # (executor.Plan): that is what makes a plan follow the passes in force, inside and after the block.
    _GENERATION[0] += 1


GRAPH_PASS_SEAM = seams.declare(
    "graph_pass", reference=_ROUND_PASSES + (fusion,), protocol=("run",), kind="add", on_change=_passes_changed,
    doc="A graph optimizer pass: an object (or a class, built per optimization; or a module) with a string "
        "`name` and `run(program, report) -> program`. Inside `engine.seams.using(graph_pass=MyPass)` every graph "
        "the optimizer compiles runs MyPass; a pass named like a reference pass ('model_pruning', "
        "'constant_folding', 'arithmetic_optimization', 'common_subgraph_elimination', 'remapping') replaces it, "
        "any other runs after the reference rounds, before fusion. The IR a pass reads and rewrites, and the "
        "reference passes (the seam's reference, in pipeline order): see engine/framework/optimizer/__init__.py.")
