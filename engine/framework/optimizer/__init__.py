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
"""
from . import arithmetic, constant_folding, cse, fusion, ir, memory_plan, pruning
from .ir import Program, from_operations

__all__ = ["optimize", "Report", "Program", "from_operations"]

ROUNDS = 2


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
    ``None`` reads the current ``tf.config.optimizer`` settings.
    """
    from ... import config_optimizer
    if options is None or "model_pruning" not in options:
        options = config_optimizer.effective_options(options)
    report = Report({k: v for k, v in options.items() if k != "min_graph_nodes"})
    report.nodes_before = len(program.nodes)
    peak_before, _ = memory_plan.peak_bytes(program, release=False)
    program = program.copy()
    if len(program.nodes) >= options.get("min_graph_nodes", 0):
        for _ in range(ROUNDS):
            seen = len(report.entries)
            if options["model_pruning"]:
                pruning.run(program, report)
            if options["constant_folding"]:
                constant_folding.run(program, report)
            if options["arithmetic_optimization"]:
                arithmetic.run(program, report)
            if options["common_subgraph_elimination"]:
                cse.run(program, report)
            if len(report.entries) == seen:
                break
        if options["remapping"]:
            fusion.run(program, report, elementwise=options["elementwise_fusion"],
                       reuse_buffers=options["memory_optimization"])
        if options["model_pruning"]:
            pruning.run(program, report)
    program.check()
    report.nodes_after = len(program.nodes)
    report.memory = memory_plan.plan_memory(program, peak_before, release=options["memory_optimization"])
    return program, report
