"""Pictures of what the engine does: the ops on a tape, graphs, device rings.

Everything here builds a Graphviz *DOT* description with the ``graphviz``
Python package and wraps it in a :class:`Diagram`, which Jupyter displays as
an SVG picture::

    import engine as tf
    from engine import viz

    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x ** 3
    viz.draw_tape(tape)              # the ops the tape recorded, in order
    viz.draw_tape(tape, target=y)    # ... and the path of the backward walk
    viz.draw_tape(tape, target=y, step=1)   # the backward walk, one op at a time

Drawing the DOT text as a picture needs a *renderer* program. We use the
first one found:

1. ``dot``, from Graphviz (conda, apt, brew), or
2. ``graphviz-pure``, a self-contained port of ``dot`` that ``pip`` installs
   with this project (the pip-only path has no ``dot``). It takes the same
   command line: ``graphviz-pure -Tsvg < graph.dot > graph.svg``.

A picture must never break a notebook: if no renderer is found, or it fails, the
Diagram shows its DOT source as text instead (paste it into any Graphviz viewer).

Other parts of the course reuse the building blocks: :func:`digraph` (an empty
graph in the house style), :data:`STYLES` (how ops, tensors, variables and
devices look), :func:`draw_graph` (nodes and edges in, picture out) and
:class:`Diagram` (display, ``.source``, ``.save(path)``).

Deliberate difference: TensorFlow has no ``viz`` module (it draws graphs with
TensorBoard). This one exists for teaching.
"""
import os
import pathlib
import shutil
import subprocess
import sysconfig
import warnings

import graphviz
import numpy as np

__all__ = ["Diagram", "STYLES", "digraph", "draw_graph", "draw_tape", "find_renderers", "render"]

RENDERERS = ("dot", "graphviz-pure")
"""Renderer programs, in order of preference. Both accept ``-T<format>`` and read DOT on stdin."""

RENDER_TIMEOUT_S = 30

STYLES = {
    "op": dict(shape="box", style="rounded,filled", fillcolor="#dbe9f6", color="#4a7ab5"),
    "read": dict(shape="box", style="rounded,filled", fillcolor="#eef3f9", color="#8aa6c8", fontsize="10"),
    "tensor": dict(shape="ellipse", style="filled", fillcolor="white", color="#555555"),
    "dropped": dict(shape="ellipse", style="dashed", color="#888888", fontcolor="#555555"),
    "variable": dict(shape="ellipse", style="filled,bold", fillcolor="#fff2b3", color="#b38f00"),
    "source": dict(shape="ellipse", style="filled,bold", fillcolor="#e3f4dd", color="#4c9a3a"),
    "constant": dict(shape="ellipse", style="filled", fillcolor="#eeeeee", color="#999999"),
    "device": dict(shape="box3d", style="filled", fillcolor="#f3e6f7", color="#7d4a91"),
    "note": dict(shape="note", style="filled", fillcolor="#fffbe6", color="#c9b458"),
    # The backward walk (draw_tape with target=...):
    "grad_done": dict(style="rounded,filled", fillcolor="#fbd9c4", color="#d2691e"),
    "grad_now": dict(style="rounded,filled,bold", fillcolor="#f4a261", color="#b03a00", penwidth="2.5"),
    "grad_tensor": dict(color="#d2691e", penwidth="2"),
}
"""Node looks, by kind. Pass ``kind=`` to :func:`draw_graph` nodes, or ``**STYLES[kind]`` to ``g.node``."""


# --------------------------------------------------------------------------------------
# Rendering: DOT text -> SVG/PNG bytes, with whichever renderer this machine has
# --------------------------------------------------------------------------------------
def find_renderers():
    """Paths of the renderer programs available here, best first (maybe none).

    Also looks next to the running Python: a Jupyter kernel started from
    ``.venv/bin/jupyter`` often lacks ``.venv/bin`` on its ``PATH``, which is
    where pip puts ``graphviz-pure``.
    """
    scripts = sysconfig.get_path("scripts")
    found = []
    for name in RENDERERS:
        path = shutil.which(name) or shutil.which(name, path=scripts)
        if path and path not in found:
            found.append(path)
    return found


def render(source, fmt="svg"):
    """Turn DOT text into ``fmt`` (``"svg"``, ``"png"``, ...) bytes.

    Returns ``(data, problem)``: ``data`` is None when nothing could render it,
    and ``problem`` then says why. Never raises for a missing or failing renderer.
    """
    renderers = find_renderers()
    if not renderers:
        return None, ("No Graphviz renderer found. `pip install graphviz-pure` (or install Graphviz, "
                      "which provides `dot`) to see pictures.")
    problem = None
    for exe in renderers:
        try:
            done = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True,
                                  timeout=RENDER_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            problem = f"{os.path.basename(exe)} could not run: {exc}"
            continue
        if done.returncode == 0 and done.stdout:
            return done.stdout, None
        problem = f"{os.path.basename(exe)} failed: {done.stderr.decode('utf-8', 'replace').strip()}"
    return None, problem


class Diagram:
    """A picture: shows as SVG in Jupyter, or as its DOT source when it cannot be drawn.

    ``graph`` is the underlying ``graphviz.Digraph``; add to it freely, the
    picture follows. ``source`` is the DOT text, ``svg()`` the rendered picture
    (or None), ``save(path)`` writes a file whose format follows the extension.
    """

    def __init__(self, graph):
        self.graph = graph
        self._rendered = {}        # (source, fmt) -> (data, problem)

    @property
    def source(self):
        return self.graph.source

    def _render(self, fmt):
        key = (self.source, fmt)
        if key not in self._rendered:
            self._rendered = {key: render(self.source, fmt)}   # keep only the latest picture
        return self._rendered[key]

    def svg(self):
        """The picture as SVG text, or None when no renderer could draw it."""
        data, _ = self._render("svg")
        return None if data is None else data.decode("utf-8")

    def save(self, path):
        """Write the picture to ``path``: ``.svg``, ``.png``, ... or ``.dot``/``.gv`` for the source.

        Without a working renderer, writes the DOT source beside it (``path`` with
        a ``.dot`` extension), warns, and returns that path instead. Returns the
        path written.
        """
        path = pathlib.Path(path)
        fmt = path.suffix.lstrip(".").lower() or "svg"
        if fmt in ("dot", "gv"):
            path.write_text(self.source, encoding="utf-8")
            return path
        data, problem = self._render(fmt)
        if data is None:
            path = path.with_suffix(".dot")
            path.write_text(self.source, encoding="utf-8")
            warnings.warn(f"Could not draw the picture ({problem}); wrote its DOT source to {path}.",
                          RuntimeWarning, stacklevel=2)
            return path
        path.write_bytes(data)
        return path

    # --- Jupyter display ------------------------------------------------------------------
    def _repr_mimebundle_(self, include=None, exclude=None):
        data, problem = self._render("svg")
        if data is not None:
            return {"image/svg+xml": data.decode("utf-8"), "text/plain": repr(self)}
        return {"text/plain": f"{problem}\nDOT source of the picture:\n\n{self.source}"}

    def _repr_svg_(self):
        return self.svg()

    def __repr__(self):
        return f"<Diagram: {self.source.count(chr(10))} lines of DOT; .source shows them>"


def digraph(title=None, rankdir="TB", **graph_attrs):
    """An empty ``graphviz.Digraph`` in the house style (fonts, spacing, optional title)."""
    g = graphviz.Digraph(graph_attr=dict(rankdir=rankdir, fontname="Helvetica", fontsize="12",
                                         nodesep="0.3", ranksep="0.35", **graph_attrs),
                         node_attr=dict(fontname="Helvetica", fontsize="11", height="0.3"),
                         edge_attr=dict(fontname="Helvetica", fontsize="9", color="#555555",
                                        arrowsize="0.7"))
    if title:
        g.attr(label=title, labelloc="t")
    return g


# --------------------------------------------------------------------------------------
# A generic picture: nodes and edges
# --------------------------------------------------------------------------------------
def _attrs(spec):
    """A node/edge spec (None, a label string, or a dict with an optional ``kind``) -> DOT attributes."""
    if spec is None:
        return {}
    if isinstance(spec, str):
        return {"label": spec}
    spec = dict(spec)
    kind = spec.pop("kind", None)
    return {**STYLES.get(kind, {}), **{k: str(v) for k, v in spec.items()}}


def draw_graph(nodes, edges=(), title=None, rankdir="TB", layout=None):
    """Draw any directed graph.

    ``nodes``: node ids (any hashable), ``(id, spec)`` pairs, or a dict ``{id: spec}``.
    ``edges``: ``(tail, head)`` or ``(tail, head, spec)``. A spec is a label string or
    a dict of Graphviz attributes; ``kind`` picks a look from :data:`STYLES`::

        draw_graph({"GPU:0": {"kind": "device"}, "GPU:1": {"kind": "device"}},
                   [("GPU:0", "GPU:1", "chunk 0"), ("GPU:1", "GPU:0", "chunk 1")],
                   layout="circo")

    ``layout`` chooses Graphviz's layout program (``dot``, ``circo`` for rings,
    ``neato``...). Nodes that appear only in edges are added with default looks.
    """
    g = digraph(title, rankdir, **({"layout": layout} if layout else {}))
    names = {}

    def name(node_id, spec=None):
        if node_id not in names:
            names[node_id] = f"n{len(names)}"   # safe DOT names: ids like "GPU:0" would read as ports
            g.node(names[node_id], **{"label": str(node_id), **_attrs(spec)})
        return names[node_id]

    items = nodes.items() if isinstance(nodes, dict) else nodes
    for item in items:
        if isinstance(item, tuple) and len(item) == 2:
            name(*item)
        else:
            name(item)
    for edge in edges:
        tail, head, spec = (tuple(edge) + (None,))[:3]
        g.edge(name(tail), name(head), **_attrs(spec))
    return Diagram(g)


# --------------------------------------------------------------------------------------
# The picture of a GradientTape
# --------------------------------------------------------------------------------------
def _value_text(obj):
    """A short text of a small value (at most 4 elements), or None for big values and shape-only records."""
    if getattr(obj, "_value", None) is None:   # the tape's shape-only records have no value
        return None
    value = np.asarray(obj.numpy())
    if value.size > 4:
        return None
    if value.ndim == 0:
        item = value.item()
        return repr(round(item, 4)) if isinstance(item, float) else str(item)
    return np.array2string(value, precision=4, separator=", ")


def _describe(obj, show_values):
    """``float32 (2, 3)`` for a tensor, a variable or a shape-only record, plus ``= value`` when small."""
    text = f"{obj.dtype.name} {obj.shape}"
    value = _value_text(obj) if show_values else None
    return text if value is None else f"{text}\\n= {value}"


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


def draw_tape(tape, target=None, step=None, gradients=None, sources=None, show_values=True):
    """Draw the ops a :class:`GradientTape` recorded, and optionally its backward walk.

    * Ovals are tensors: yellow for watched variables, green for watched tensors,
      grey for inputs the tape does not watch (constants), white for intermediate
      results, dashed when the tape dropped the value because the op's gradient
      needs only its shape (``saves_inputs``/``saves_outputs`` in
      ``framework/registry.py``). Small values are printed.
    * Boxes are ops, numbered in recording order. Variable reads are the pale
      ``ReadVariableOp`` boxes: reading a variable is an op the tape records.
    * ``target=y`` colours the ops the backward walk of ``tape.gradient(y, ...)``
      visits, numbered in *its* order (newest first), and the tensors that receive
      a gradient. ``step=k`` shows the walk after ``k`` steps, the k-th op being
      the one running now; ``step=0`` is the moment ``y`` is seeded with ones.
    * ``gradients=`` prints gradients beside their sources: a list aligned with
      ``sources`` (default ``tape.watched_variables()``), for instance the result
      of ``tape.gradient(y, tape.watched_variables())``.

    A non-persistent tape frees its records in ``gradient()``: draw first, or use
    ``tf.GradientTape(persistent=True)``.
    """
    entries = tape._entries
    if entries is None:
        return draw_graph({"used": {"kind": "note", "label": (
            "This tape was already used: a non-persistent tape frees its records in gradient().\\n"
            "Draw it before calling gradient(), or use tf.GradientTape(persistent=True).")}})
    variables = {v._id: v for v in tape.watched_variables()}
    produced = {tid for e in entries for tid in e.output_ids}

    # 1. Every tensor on the tape once, preferring a record that still holds the value.
    tensors = dict(variables)
    for e in entries:
        for tid, t in zip(e.input_ids + e.output_ids, e.inputs + e.outputs):
            if tid not in tensors or getattr(tensors[tid], "_value", None) is None:
                tensors[tid] = t

    # 2. The backward walk: which ops have run after `step` steps, which tensors hold a gradient.
    targets = [] if target is None else list(target) if isinstance(target, (list, tuple)) else [target]
    walk = _backward_walk(entries, targets)
    done = walk if step is None else walk[:max(0, step)]
    current = done[-1] if step is not None and 0 < step <= len(walk) else None
    reached = {getattr(t, "_id", None) for t in targets}
    for index in done:
        reached.update(entries[index].input_ids)

    # 3. Gradients to print beside their sources.
    grad_text = {}
    if gradients is not None:
        for src, grad in zip(tape.watched_variables() if sources is None else sources, gradients):
            text = "None" if grad is None else _value_text(grad) or str(getattr(grad, "shape", type(grad).__name__))
            grad_text[getattr(src, "_id", None)] = text

    title = None
    if targets and step is not None:
        if current is not None:
            title = (f"backward step {step} of {len(walk)}: {entries[current].type} turns the gradient "
                     f"of its output into gradients of its inputs")
        elif step <= 0:
            title = f"backward step 0 of {len(walk)}: the target's gradient is seeded with ones"
        else:
            title = f"backward walk finished ({len(walk)} steps)"
    g = digraph(title)

    for tid, t in tensors.items():
        if tid in variables:
            kind, label = "variable", f"{t.name}\\n{_describe(t, show_values)}"
        elif tid in produced:
            kept = getattr(t, "_value", None) is not None
            kind = "tensor" if kept else "dropped"
            label = _describe(t, show_values) + ("" if kept else "\\n(value not kept)")
        elif tid in tape._watched:
            kind, label = "source", "watched\\n" + _describe(t, show_values)
        else:
            kind, label = "constant", _describe(t, show_values)
        if tid in grad_text:
            label += f"\\ngrad = {grad_text[tid]}"
        gets_grad = tid in reached and t.dtype.is_floating   # no gradient flows into integers
        style = {**STYLES[kind], **(STYLES["grad_tensor"] if gets_grad else {})}
        g.node(f"t{tid}", label=label, **style)

    position = {index: k + 1 for k, index in enumerate(walk)}
    for index, e in enumerate(entries):
        label = f"{index + 1}. {e.type}"
        style = dict(STYLES["read" if e.type == "ReadVariableOp" else "op"])
        if index in position:
            label += f"\\nbackward step {position[index]}"
            style.update(STYLES["grad_now" if index == current else "grad_done"] if index in done else {})
        g.node(f"op{index}", label=label, **style)
        edge_style = dict(color="#d2691e", penwidth="2") if index in done else {}
        numbered = len(e.input_ids) > 1
        for k, tid in enumerate(e.input_ids):
            flows = edge_style if tensors[tid].dtype.is_floating else {}
            g.edge(f"t{tid}", f"op{index}", label=str(k) if numbered else None, **flows)
        for tid in e.output_ids:
            g.edge(f"op{index}", f"t{tid}", **edge_style)
    return Diagram(g)
