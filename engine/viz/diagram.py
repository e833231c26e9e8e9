"""The picture object, the renderers, and a generic nodes-and-edges drawing.

A :class:`Diagram` *is* a ``graphviz.Digraph`` (build on it with ``node``,
``edge``, ``subgraph``...), with one difference: it draws itself with the first
renderer this machine has, ``dot`` or ``graphviz-pure``, and when there is none
it shows its DOT text instead of raising. Everything in :mod:`engine.viz`
returns one.
"""
import html
import os
import pathlib
import shutil
import subprocess
import sysconfig
import warnings

import graphviz
import numpy as np

__all__ = ["Diagram", "STYLES", "digraph", "draw_nodes", "find_renderers", "render", "value_text", "RenderError"]

RENDERERS = ("dot", "graphviz-pure")
"""Renderer programs, in order of preference. Both accept ``-T<format>`` and read DOT on stdin."""

RENDER_TIMEOUT_S = 30

STYLES = {
    # --- the tape (draw_tape) ---------------------------------------------------------
    "op": dict(shape="box", style="rounded,filled", fillcolor="#dbe9f6", color="#4a7ab5"),
    "read": dict(shape="box", style="rounded,filled", fillcolor="#eef3f9", color="#8aa6c8", fontsize="10"),
    "tensor": dict(shape="ellipse", style="filled", fillcolor="white", color="#555555"),
    "dropped": dict(shape="ellipse", style="dashed", color="#888888", fontcolor="#555555"),
    "variable": dict(shape="ellipse", style="filled,bold", fillcolor="#fff2b3", color="#b38f00"),
    "source": dict(shape="ellipse", style="filled,bold", fillcolor="#e3f4dd", color="#4c9a3a"),
    "constant": dict(shape="ellipse", style="filled", fillcolor="#eeeeee", color="#999999"),
    "target": dict(peripheries="2", penwidth="2"),
    "device": dict(shape="box3d", style="filled", fillcolor="#f3e6f7", color="#7d4a91"),
    "note": dict(shape="note", style="filled", fillcolor="#fffbe6", color="#c9b458"),
    # The backward walk (draw_tape with target=...):
    "grad_done": dict(style="rounded,filled", fillcolor="#fbd9c4", color="#d2691e"),
    "grad_now": dict(style="rounded,filled,bold", fillcolor="#f4a261", color="#b03a00", penwidth="2.5"),
    "grad_tensor": dict(color="#d2691e", penwidth="2"),
    "grad_flow": dict(style="dashed", color="#d2691e", fontcolor="#b03a00", penwidth="1.5", constraint="false"),
    # --- graphs (draw_graph of a tf.Graph): one look per kind of node --------------------
    "placeholder": dict(shape="invhouse", style="filled,bold", fillcolor="#e3f4dd", color="#4c9a3a"),
    "var_handle": dict(shape="cylinder", style="filled,bold", fillcolor="#fff2b3", color="#b38f00"),
    "var_op": dict(shape="box", style="rounded,filled", fillcolor="#fff9dc", color="#b38f00"),
    "group": dict(shape="octagon", style="filled", fillcolor="white", color="#777777"),
    "gradient": dict(shape="box", style="rounded,filled", fillcolor="#fde8d7", color="#d2691e"),
    "fused": dict(shape="box", style="rounded,filled,bold", fillcolor="#e8dcf3", color="#7d4a91", peripheries="2"),
    "scope": dict(shape="folder", style="filled", fillcolor="#e6e6e6", color="#777777"),
    "outside": dict(shape="box", style="rounded,dashed", color="#999999", fontcolor="#666666"),
    # Session.run highlighting and before/after comparison:
    "run": dict(color="#c0392b", penwidth="2.5"),
    "pruned": dict(color="#cccccc", fontcolor="#aaaaaa", fillcolor="#f7f7f7"),
    "fed": dict(color="#2e7d32", penwidth="2.5"),
    "added": dict(color="#7d4a91", penwidth="2.5"),
    "removed": dict(color="#bbbbbb", fontcolor="#999999", fillcolor="#f7f7f7"),
}
"""Node looks, by kind. Pass ``kind=`` to :func:`draw_nodes` nodes, or ``**STYLES[kind]`` to ``g.node``."""


class RenderError(RuntimeError):
    """Raised by :meth:`Diagram.pipe` when no renderer could draw the picture (display never raises)."""


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


def render(source, fmt="svg", engine=None):
    """Turn DOT text into ``fmt`` (``"svg"``, ``"png"``, ...) bytes.

    ``engine`` picks Graphviz's layout program (``-K``: ``neato``, ``circo``...).
    Returns ``(data, problem)``: ``data`` is None when nothing could render it,
    and ``problem`` then says why. Never raises for a missing or failing renderer.
    """
    renderers = find_renderers()
    if not renderers:
        return None, ("No Graphviz renderer found. `pip install graphviz-pure` (or install Graphviz, "
                      "which provides `dot`) to see pictures.")
    problem = None
    for exe in renderers:
        command = [exe, f"-T{fmt}"] + ([f"-K{engine}"] if engine and engine != "dot" else [])
        try:
            done = subprocess.run(command, input=source.encode("utf-8"), capture_output=True,
                                  timeout=RENDER_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            problem = f"{os.path.basename(exe)} could not run: {exc}"
            continue
        if done.returncode == 0 and done.stdout:
            return done.stdout, None
        problem = f"{os.path.basename(exe)} failed: {done.stderr.decode('utf-8', 'replace').strip()}"
    return None, problem


class Diagram(graphviz.Digraph):
    """A ``graphviz.Digraph`` that shows as SVG in Jupyter, or as its DOT source when it cannot be drawn.

    Build on it like any ``Digraph`` (``node``, ``edge``, ``subgraph``, ``attr``);
    the picture follows. ``source`` is the DOT text, ``svg()`` the rendered
    picture (or None), ``save(path)`` writes a file whose format follows the
    extension. ``pipe()`` works like graphviz's, with ``graphviz-pure`` when
    there is no ``dot``. ``Diagram(g)`` wraps an existing ``graphviz.Digraph``
    (sharing its contents).
    """

    def __init__(self, graph=None, **kwargs):
        if isinstance(graph, graphviz.Digraph):
            super().__init__(name=graph.name, comment=graph.comment, filename=graph.filename,
                             directory=graph.directory, format=graph.format, engine=graph.engine,
                             encoding=graph.encoding, strict=graph.strict)
            # share, not copy: adding to `graph` later still shows in this picture
            self.body, self.graph_attr = graph.body, graph.graph_attr
            self.node_attr, self.edge_attr = graph.node_attr, graph.edge_attr
        elif graph is not None and not isinstance(graph, str):
            raise TypeError(f"Diagram() wraps a graphviz.Digraph, not {type(graph).__name__}")
        else:
            super().__init__(**({"name": graph} if graph is not None else {}), **kwargs)
        self._rendered = {}        # (source, fmt, engine) -> (data, problem)

    @property
    def graph(self):
        """The ``graphviz.Digraph`` to add to: the diagram itself (kept for older code)."""
        return self

    def _render(self, fmt):
        key = (self.source, fmt, self.engine)
        if key not in self._rendered:
            self._rendered = {key: render(key[0], fmt, self.engine)}   # keep only the latest picture
        return self._rendered[key]

    def svg(self):
        """The picture as SVG text, or None when no renderer could draw it."""
        data, _ = self._render("svg")
        return None if data is None else data.decode("utf-8")

    def pipe(self, format=None, renderer=None, formatter=None, neato_no_op=None, quiet=False,  # noqa: A002
             *, engine=None, encoding=None):
        """The rendered picture as bytes (``str`` with ``encoding``), like ``graphviz.Digraph.pipe``.

        Uses ``dot`` or ``graphviz-pure``; raises :class:`RenderError` if neither can draw it.
        (``renderer``/``formatter``/``neato_no_op`` need real Graphviz: they go to graphviz's own ``pipe``.)
        """
        if renderer or formatter or neato_no_op:
            return super().pipe(format=format, renderer=renderer, formatter=formatter, neato_no_op=neato_no_op,
                                quiet=quiet, engine=engine, encoding=encoding)
        fmt = format or self.format or "svg"
        if engine is not None and engine != self.engine:
            data, problem = render(self.source, fmt, engine)
        else:
            data, problem = self._render(fmt)
        if data is None:
            raise RenderError(problem)
        return data.decode(encoding) if encoding else data

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

    # --- Jupyter display: never raises; a wide picture shrinks to the output area ------------
    def _repr_mimebundle_(self, include=None, exclude=None, **_):
        data, problem = self._render("svg")
        if data is not None:
            return {"image/svg+xml": _fit_to_width(data.decode("utf-8")), "text/plain": repr(self)}
        return {"text/plain": f"{problem}\nDOT source of the picture:\n\n{self.source}"}

    def _repr_svg_(self):
        return self.svg()

    def _repr_image_svg_xml(self):
        return self.svg()

    def __repr__(self):
        return f"<Diagram: {self.source.count(chr(10))} lines of DOT; .source shows them>"


def _fit_to_width(svg):
    """The SVG with ``max-width: 100%`` on its root element: in a notebook, a graph wider than the output
    area is scaled down to fit it (its ``viewBox`` keeps the proportions) instead of overflowing."""
    start = svg.find("<svg")
    if start < 0 or "max-width" in svg[start:svg.find(">", start)]:
        return svg
    return svg[:start] + '<svg style="max-width: 100%; height: auto"' + svg[start + 4:]


def digraph(title=None, rankdir="TB", **graph_attrs):
    """An empty :class:`Diagram` in the house style (fonts, spacing, optional title)."""
    g = Diagram(graph_attr=dict(rankdir=rankdir, fontname="Helvetica", fontsize="12",
                                nodesep="0.3", ranksep="0.35", **graph_attrs),
                node_attr=dict(fontname="Helvetica", fontsize="11", height="0.3"),
                edge_attr=dict(fontname="Helvetica", fontsize="9", color="#555555", arrowsize="0.7"))
    if title:
        g.attr(label=title, labelloc="t")
    return g


def legend(g, entries, name="legend", title=None):
    """Add one node to ``g`` listing ``entries``: ``(text, style_dict)`` pairs, each in its colours."""
    rows = [f"<tr><td><b>{html.escape(title)}</b></td></tr>"] if title else []
    for text, style in entries:
        colour = style.get("fillcolor") or "white"
        border = style.get("color") or "#555555"
        rows.append(f'<tr><td bgcolor="{colour}" color="{border}">{html.escape(text)}</td></tr>')
    table = f'<<table border="0" cellborder="1" cellspacing="2" cellpadding="3">{"".join(rows)}</table>>'
    g.node(name, label=table, shape="plaintext", fontsize="9")


def value_text(value, max_elements=4):
    """A short text of a small array (at most ``max_elements`` elements), or None for bigger ones."""
    value = np.asarray(value)
    if value.size > max_elements:
        return None
    if value.ndim == 0:
        item = value.item()
        return repr(round(item, 4)) if isinstance(item, float) else str(item)
    return np.array2string(value, precision=4, separator=", ")


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


def draw_nodes(nodes, edges=(), title=None, rankdir="TB", layout=None):
    """Draw any directed graph (``draw_graph(nodes, edges)`` comes here).

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
    return g
