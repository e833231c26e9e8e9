"""The little static analysis AutoGraph needs: which names a statement writes, reads, and leaves *live*.

To turn ``while n != 1: ...`` into ``tf.while_loop``, the converter must know
the **loop variables**: the names the body assigns whose values are needed on
the next iteration or after the loop. That is classic *liveness* analysis, done
backwards over the statements::

    live before `s` = (live after `s` - names `s` assigns) | names `s` reads

For an ``if``, what is live before it is the union over both branches; for a
loop, the live set at the loop head is a fixed point (the body may read on the
next iteration what it assigns now). The converter then uses:

* ``if`` outputs        = assigned in a branch  and  live after the ``if``;
* loop variables        = assigned in the loop  and  live at the loop head.

Scopes: nested functions, lambdas, classes and comprehensions have their own
locals. What they assign does not leak out; what they read from outside counts
as a read where they are defined (a safe over-approximation).

Results are stored on the AST nodes: ``node.ag_live_out`` (live after the statement)
and ``node.ag_live_in`` (live before it) for ``if``/``while``/``for``, and
``node.ag_live_at_head`` for loops.
"""
import ast

__all__ = ["assigned", "reads", "annotate_liveness"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _as_list(nodes):
    if nodes is None:
        return []
    return list(nodes) if isinstance(nodes, list) else [nodes]


def _walk(root):
    """``root`` and its descendants in the same scope: nested scopes are yielded, not entered."""
    todo = [root]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def assigned(nodes):
    """The names that ``nodes`` (statements or expressions) bind in the current scope."""
    names = set()
    for root in _as_list(nodes):
        for node in _walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
    return names


def _free_reads(scope):
    """Names a nested scope reads from outside it (loaded and not bound inside)."""
    loads, bound = set(), set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            loads.add(node.target.id)
    return loads - bound


def reads(nodes):
    """The names whose current values ``nodes`` read (``x += 1`` reads ``x``)."""
    names = set()
    for root in _as_list(nodes):
        for node in _walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, _SCOPES):
                names |= _free_reads(node)
    return names


# ----------------------------------------------------------------------------------------
# Liveness
# ----------------------------------------------------------------------------------------
def annotate_liveness(body, live_at_exit=()):
    """Backward liveness over a function body; returns the names live at its entry."""
    return _block(body, set(live_at_exit))


def _block(stmts, live):
    for stmt in reversed(stmts):
        live = _stmt(stmt, live)
    return live


def _fixpoint(step, start):
    head = set(start)
    while True:
        new = head | step(head)
        if new == head:
            return head
        head = new


def _stmt(s, live_out):
    live_out = set(live_out)
    if isinstance(s, ast.If):
        s.ag_live_out = frozenset(live_out)
        live_in = reads(s.test) | _block(s.body, live_out) | _block(s.orelse, live_out)
        s.ag_live_in = frozenset(live_in)
        return live_in
    if isinstance(s, ast.While):
        s.ag_live_out = frozenset(live_out)
        head = _fixpoint(lambda h: _block(s.body, h), live_out | reads(s.test))
        s.ag_live_at_head = frozenset(head)
        live_in = head | _block(s.orelse, live_out)
        s.ag_live_in = frozenset(live_in)
        return live_in
    if isinstance(s, ast.For):
        s.ag_live_out = frozenset(live_out)
        targets = assigned(s.target)
        extra = reads(getattr(s, "ag_extra_test", None))
        head = _fixpoint(lambda h: _block(s.body, h) - targets, live_out | extra)
        s.ag_live_at_head = frozenset(head)
        live_in = head | reads(s.iter) | _block(s.orelse, live_out)
        s.ag_live_in = frozenset(live_in)
        return live_in
    if isinstance(s, (ast.With, ast.AsyncWith)):
        targets = assigned([item.optional_vars for item in s.items if item.optional_vars is not None])
        return (_block(s.body, live_out) - targets) | reads([item.context_expr for item in s.items])
    if isinstance(s, ast.Try):
        after = _block(s.finalbody, live_out)
        handlers = set()
        for h in s.handlers:
            handlers |= _block(h.body, after) | reads(h.type)
        return _block(s.body, _block(s.orelse, after) | handlers) | handlers
    if isinstance(s, (ast.Global, ast.Nonlocal)):
        return live_out
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (live_out - {s.name}) | reads(s)
    return (live_out - assigned(s)) | reads(s)
