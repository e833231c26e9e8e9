"""Pictures of what the engine does: the ops on a tape, dataflow graphs, device rings.

Everything here returns a :class:`Diagram`, which *is* a ``graphviz.Digraph``
and which Jupyter displays as an SVG picture::

    import engine as tf
    from engine import viz

    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x ** 3
    viz.draw_tape(tape)              # the ops the tape recorded, in order
    viz.draw_tape(tape, target=y)    # ... and the gradient flowing backwards
    viz.draw_tape(tape, target=y, step=1)   # the backward walk, one op at a time

    g = tf.Graph()
    with g.as_default():
        ...
    viz.draw_graph(g)                                  # ops, tensors, scopes
    viz.draw_graph(g, highlight=loss, feed_dict={x: batch})   # what sess.run(loss, ...) executes
    viz.draw_graph(g, color_by="device")
    viz.draw_graph(g, before_after=optimized)          # two graphs side by side

Drawing the DOT text as a picture needs a *renderer* program. We use the
first one found:

1. ``dot``, from Graphviz (conda, apt, brew), or
2. ``graphviz-pure``, a self-contained port of ``dot`` that ``pip`` installs
   with this project (the pip-only path has no ``dot``). It takes the same
   command line: ``graphviz-pure -Tsvg < graph.dot > graph.svg``.

A picture must never break a notebook: if no renderer is found, or it fails, the
Diagram shows its DOT source as text instead (paste it into any Graphviz viewer).

The modules: ``diagram.py`` (the Diagram, renderers, house style, generic
nodes-and-edges pictures), ``tape.py`` (:func:`draw_tape`), ``graphs.py``
(dataflow graphs). Other parts of the course reuse the building blocks:
:func:`digraph` (an empty picture in the house style), :data:`STYLES` (how
ops, tensors, variables and devices look), :func:`draw_graph` with nodes and
edges, and :class:`Diagram` (display, ``.source``, ``.save(path)``).

Deliberate difference: TensorFlow has no ``viz`` module (it draws graphs with
TensorBoard). This one exists for teaching.
"""
from . import diagram, graphs, tape
from .diagram import STYLES, Diagram, RenderError, digraph, draw_nodes, find_renderers, render
from .graphs import KINDS, op_kind
from .tape import draw_tape

__all__ = ["Diagram", "STYLES", "KINDS", "digraph", "draw_graph", "draw_tape", "draw_nodes", "find_renderers",
           "render", "op_kind", "RenderError"]


def draw_graph(graph, edges=(), *, title=None, rankdir="TB", layout=None, highlight=None, feed_dict=None,
               collapse_scopes=None, show_shapes=True, color_by="kind", before_after=None, max_nodes=60,
               legend=True):
    """Draw a dataflow graph (a ``tf.Graph``, a function's graph, a plan), or any nodes and edges.

    **A dataflow graph.** ``graph`` is a ``tf.Graph``, anything with a ``.graph``
    that is one (a ConcreteFunction, a Session), a compiled plan (``.ops``), or a
    list of operations. The picture:

    * one node per op, its look by kind (:data:`KINDS`: placeholders, constants,
      variables, NoOp groups, gradient ops under ``gradients/``, fused ``_Fused*``
      ops, ordinary ops), or with ``color_by="device"`` its fill by device;
    * data edges labelled ``dtype (shape)`` (``show_shapes=False`` drops them);
      control edges dashed;
    * name scopes as boxes. ``collapse_scopes``: ``None`` (default) collapses
      scopes into one folder node each, shallowest last, only as far as needed
      to stay under ``max_nodes`` nodes; ``False`` never; ``True`` every top-level
      scope; an ``int`` every scope at that depth (0 = top level); a scope name
      or a list of names exactly those;
    * ``highlight=fetches, feed_dict=feeds``: the ops ``Session.run(fetches,
      feed_dict)`` executes, found by the executor's own ``prune``, in red; fed
      tensors' producers in green; the rest faded. ``highlight`` may also be a
      plan (its ``.ops`` are highlighted as they are). Fetched ops get a double
      outline;
    * ``before_after=other``: ``graph`` and ``other`` side by side (``other`` a
      graph, a plan, a list of ops), ops only in the left one faded, ops only in
      the right one outlined. When ``other`` is a plan and ``graph`` a whole
      graph, the left side shows the ops the plan's request needs before
      optimization.

    **Any directed graph** (devices in a ring, a pipeline...): ``graph`` is a
    dict ``{id: spec}`` or a list of node ids / ``(id, spec)`` pairs, ``edges``
    a list of ``(tail, head)`` or ``(tail, head, spec)``; a spec is a label or a
    dict of Graphviz attributes with an optional ``kind`` from :data:`STYLES`.
    ``layout`` picks Graphviz's layout program (``circo`` for rings). See
    :func:`~engine.viz.diagram.draw_nodes`.

    Returns a :class:`Diagram` (a ``graphviz.Digraph``).
    """
    if graphs.graph_like(graph):
        if edges:
            raise TypeError("draw_graph(graph, ...) takes its options by keyword; `edges` is for "
                            "draw_graph(nodes, edges).")
        return graphs.draw_dataflow(graph, highlight=highlight, feed_dict=feed_dict, collapse_scopes=collapse_scopes,
                                    show_shapes=show_shapes, color_by=color_by, before_after=before_after,
                                    max_nodes=max_nodes, legend_box=legend, title=title, rankdir=rankdir)
    return draw_nodes(graph, edges, title=title, rankdir=rankdir, layout=layout)
