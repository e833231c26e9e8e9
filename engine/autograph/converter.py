"""AutoGraph's source transformation, one pass at a time (TF 2.21's passes, and its output).

``convert_function(node)`` takes the ``ast.FunctionDef`` of a user function and
rewrites it so that every piece of control flow becomes a *call* into
``ag__`` (``operators.py``), which decides at trace time whether to run it as
Python or to stage it as graph control flow. ``tf.autograph.to_code`` prints the
result, which is the code the engine then runs (TF 2.21 prints the same text).
The passes, in order:

1. **break / continue** (:func:`lower_loop_jumps`): a ``break`` becomes
   ``break_ = True`` followed by a ``continue``, the loop also stops on the flag
   (``while not break_ and ...``, or a ``for`` loop's extra test); then each
   ``continue`` becomes ``continue_ = True`` and the statements it would skip
   are guarded::

       while i < n:                       break_ = False
           if x[i] < 0:                   while not break_ and i < n:
               break             ==>          continue_ = False
           s += x[i]                          if x[i] < 0:
                                                  break_ = True
                                                  continue_ = True
                                              if not continue_:
                                                  s += x[i]

2. **return** (:func:`lower_returns`): ``return v`` becomes
   ``try: do_return = True; retval_ = v`` / ``except: do_return = False; raise``
   (a value that raises leaves the function not returned); what follows is
   guarded by ``if not do_return:``, loops also stop on ``do_return``, and the
   function ends with ``return fscope.ret(retval_, do_return)``. First,
   ``if c: return a`` followed by more code moves that code into the ``else``.
3. **expressions** (:class:`ExpressionConverter`): ``a and b`` ->
   ``ag__.and_(lambda: a, lambda: b)`` (lazy, like Python), ``not a`` ->
   ``ag__.not_(a)``, ``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, 'c')``,
   and every call ``f(x)`` -> ``ag__.converted_call(f, (x,), None, fscope)`` (the
   function scope says whether ``f`` is converted too: ``recursive``).
4. **control flow** (:class:`ControlFlowConverter`), using the liveness analysis
   of ``static_analysis.py``. Each statement becomes local functions plus one
   call::

       def f(x):                          (inside the function scope)
           if x > 0:                          def get_state():
               y = x                              return (y,)
           else:                              def set_state(vars_):
               y = -x                             nonlocal y
           return y                               y, = vars_
                              ==>             def if_body():
                                                  nonlocal y
                                                  y = ag__.ld(x)
                                              def else_body():
                                                  nonlocal y
                                                  y = -ag__.ld(x)
                                              y = ag__.Undefined('y')
                                              ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state,
                                                           set_state, ('y',), 1)

   The *state* of a statement is what it assigns and is live before or after
   it: its outputs (live after it) first, then the names only its own code
   reads (sorted within each group); the last argument of ``if_stmt`` counts the
   outputs. Only the state is ``nonlocal`` in the generated functions (other
   names they assign are their own locals), written in TF's order (that of a
   Python set: see :func:`tf_set_order`). A variable the statement may
   assign that has no value yet is first set to ``ag__.Undefined('name')``, so a
   tensor ``if`` that defines it in one branch only is reported with TF's message.
   Loops look alike: ``ag__.while_stmt(loop_test, loop_body, get_state,
   set_state, names, opts)`` and ``ag__.for_stmt(iter, extra_test, loop_body,
   ...)``. Generated names are numbered inner statements first (``get_state``,
   ``get_state_1``, ...), as TF numbers them.
5. **variables** (:class:`VariableLoads`): each name the user's code reads
   becomes ``ag__.ld(name)`` (reading an ``Undefined`` raises Python's
   ``UnboundLocalError``), ``x += 1`` is preceded by ``x = ag__.ld(x)``, and
   ``del x`` becomes ``x = ag__.Undefined('x')``.
6. **function scope**: the body goes into ``with ag__.FunctionScope('f', 'fscope',
   ag__.ConversionOptions(...)) as fscope:``.

A lambda becomes ``tf__lam = lambda x: ag__.with_function_scope(lambda lscope:
<its converted body>, 'lscope', ag__.ConversionOptions(...))``. A plain ``def``
nested in the function is converted with it, by the same passes, into its own
``with ag__.FunctionScope('inner', 'fscope_1', ag__.STD) as fscope_1:`` and marked
``@ag__.autograph_artifact`` (``converted_call`` then runs it as it is); a
lambda in the function is marked ``ag__.autograph_artifact(lambda ...)``.
"""
import ast
import copy

from .static_analysis import _free_reads, annotate_liveness, assigned

__all__ = ["convert_function", "convert_lambda", "mangle_private_names", "Namer", "VariableLoads", "tf_set_order"]

# calls left as they are: print runs while tracing (as in TF); the others depend on their caller's frame
_NOT_CONVERTED_CALLS = frozenset(["print", "super", "locals", "globals", "vars", "eval", "exec", "dir"])


# ======================================================================================
# Small AST builders
# ======================================================================================
def _expr(source):
    return ast.parse(source, mode="eval").body


def _stmt(source):
    return ast.parse(source).body[0]


def _name(identifier, store=False):
    return ast.Name(id=identifier, ctx=ast.Store() if store else ast.Load())


def _not(flag):
    return ast.UnaryOp(op=ast.Not(), operand=_name(flag))


def _and(a, b):
    return ast.BoolOp(op=ast.And(), values=[a, b])


def _assign(name, value):
    return ast.Assign(targets=[_name(name, store=True)], value=value)


def _lambda(body, params=()):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=body)


def _ag_call(function, args):
    return ast.Call(func=ast.Attribute(value=_name("ag__"), attr=function, ctx=ast.Load()), args=args, keywords=[])


def _function_def(name, params, body):
    node = _stmt(f"def {name}({', '.join(params)}):\n    pass")
    if all(isinstance(s, (ast.Nonlocal, ast.Global)) for s in body):
        body = body + [ast.Pass()]
    node.body = body
    return node


def _guard(flag, body):
    """``if not flag: body``."""
    return ast.If(test=_not(flag), body=body, orelse=[])


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def conversion_options(recursive):
    """``ag__.ConversionOptions(...)`` as TF 2.21 writes it into converted code."""
    return _expr(f"ag__.ConversionOptions(recursive={bool(recursive)}, user_requested=True, optional_features=(), "
                 f"internal_convert_user_code=True)")


def tf_set_order(names):
    """``names`` in the order TF 2.21 writes them in ``nonlocal`` statements and ``Undefined`` lines.

    TF puts them in a Python ``set`` first (of its name objects, hashed as the tuple
    ``(name, False, False)``), so the order is that set's iteration order: it changes with
    ``PYTHONHASHSEED``, as TF's output does. Built the same way (a set of the same hashes,
    filled in the same order), the set gives the same order as TF's in a process with the
    same seed.
    """
    return [key[0] for key in set((name, False, False) for name in names)]


class Namer:
    """Fresh names that do not clash with the function's own: ``get_state``, ``get_state_1``, ..."""

    def __init__(self, node):
        self.used = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                self.used.add(n.id)
            elif isinstance(n, ast.arg):
                self.used.add(n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.used.add(n.name)

    def new(self, base):
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name


def _sub_blocks(s):
    """The statement lists inside a compound statement that share its scope (not nested loops' bodies)."""
    if isinstance(s, ast.If):
        return ["body", "orelse"]
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return ["body"]
    if isinstance(s, ast.Try):
        return ["body", "orelse", "finalbody"]
    return []


def _mark_user_code(stmts):
    """Tag what the user wrote (before any pass adds code): the names it reads get ``ag__.ld``."""
    for root in stmts:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                n.ag_load = True
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                n.ag_user = True


# ======================================================================================
# Pass 1: break and continue
# ======================================================================================
def _contains(stmts, kind, into_loops=False):
    """Does a statement list contain a ``kind`` statement (not inside nested functions or, unless asked, loops)?"""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.While, ast.For)) and not into_loops:
            todo.extend(node.orelse)
            continue
        todo.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, (ast.stmt, ast.excepthandler)))
    return False


def _replace_jumps(stmts, kind, flag):
    """Replace ``kind`` statements by ``flag = True`` and guard the rest of each block with ``if not flag:``.

    Returns ``(new statements, whether a jump may have happened)``.
    """
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(_assign(flag, ast.Constant(True)))
            return out, True                      # the rest of this block is dead code
        jumped = False
        for field in _sub_blocks(s):
            new, j = _replace_jumps(getattr(s, field), kind, flag)
            setattr(s, field, new)
            jumped = jumped or j
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body, j = _replace_jumps(h.body, kind, flag)
                jumped = jumped or j
        out.append(s)
        if jumped:
            rest = stmts[i + 1:]
            if rest:
                new_rest, _ = _replace_jumps(rest, kind, flag)
                out.append(_guard(flag, new_rest))
            return out, True
    return out, False


def _replace_breaks(stmts, flag):
    """``break`` -> ``flag = True; continue`` (the rest of its block is dead code)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Break):
            out += [_assign(flag, ast.Constant(True)), ast.Continue()]
            return out
        for field in _sub_blocks(s):
            setattr(s, field, _replace_breaks(getattr(s, field), flag))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = _replace_breaks(h.body, flag)
        out.append(s)
    return out


def _extract_loop_options(loop):
    """Lift ``tf.autograph.experimental.set_loop_options(...)`` out of a loop body into ``loop.ag_options``."""
    loop.ag_options = []
    kept = []
    for s in loop.body:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                ast.unparse(s.value.func).split(".")[-1] == "set_loop_options":
            loop.ag_options.extend(s.value.keywords)
        else:
            kept.append(s)
    loop.body = kept or [ast.Pass()]


def _in_sub_blocks(s, transform):
    if getattr(s, "ag_inline", False):          # a nested function converted with its parent: its own body
        s.body = transform(s.body)
        return
    for field in _sub_blocks(s):
        setattr(s, field, transform(getattr(s, field)))
    if isinstance(s, ast.Try):
        for h in s.handlers:
            h.body = transform(h.body)


def _lower_breaks(stmts, namer):
    """Every loop (outer first) gets a ``break_`` name, as in TF; loops with a ``break`` use it."""
    out = []
    for s in stmts:
        _in_sub_blocks(s, lambda b: _lower_breaks(b, namer))
        if not isinstance(s, (ast.While, ast.For)):
            out.append(s)
            continue
        _extract_loop_options(s)
        s.ag_extra_test = None
        flag = namer.new("break_")
        s.body = _lower_breaks(s.body, namer)
        orelse, s.orelse = _lower_breaks(s.orelse, namer), []
        if not _contains(s.body, ast.Break):
            out.extend([s] + orelse)
            continue
        s.body = _replace_breaks(s.body, flag)
        if isinstance(s, ast.While):
            s.test = _and(_not(flag), s.test)
        else:
            # (a read of the flag in the body, so that the analysis sees the extra test's use of it)
            s.body = [ast.Expr(value=ast.Tuple(elts=[_name(flag)], ctx=ast.Load()))] + s.body
            s.ag_extra_test = _not(flag)
        # a loop's `else:` runs after it unless it was broken
        out.extend([_assign(flag, ast.Constant(False)), s] + ([_guard(flag, orelse)] if orelse else []))
    return out


def _lower_continues(stmts, namer):
    out = []
    for s in stmts:
        _in_sub_blocks(s, lambda b: _lower_continues(b, namer))
        if isinstance(s, (ast.While, ast.For)):
            flag = namer.new("continue_")
            s.body = _lower_continues(s.body, namer)
            if _contains(s.body, ast.Continue):
                body, _ = _replace_jumps(s.body, ast.Continue, flag)
                s.body = [_assign(flag, ast.Constant(False))] + body
        out.append(s)
    return out


def lower_loop_jumps(stmts, namer):
    """Pass 1 over a statement list: lower ``break`` (into a flag and a ``continue``), then ``continue``."""
    return _lower_continues(_lower_breaks(stmts, namer), namer)


# ======================================================================================
# Pass 2: return
# ======================================================================================
def _rewrite_conditional_returns(stmts):
    """``if c: ...; return a`` followed by more code: move that code into the ``else`` (and vice versa).

    Returns ``(new statements, whether the block always returns)``.
    """
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.append(s)
            return out, True
        if isinstance(s, ast.If):
            s.body, body_returns = _rewrite_conditional_returns(s.body)
            s.orelse, orelse_returns = _rewrite_conditional_returns(s.orelse)
            rest = stmts[i + 1:]
            if body_returns and not orelse_returns and rest:
                s.orelse, orelse_returns = _rewrite_conditional_returns(s.orelse + rest)
                out.append(s)
                return out, orelse_returns
            if orelse_returns and not body_returns and rest:
                s.body, body_returns = _rewrite_conditional_returns(s.body + rest)
                out.append(s)
                return out, body_returns
            out.append(s)
            if body_returns and orelse_returns:
                return out, True
            continue
        if isinstance(s, (ast.While, ast.For)):
            s.body, _ = _rewrite_conditional_returns(s.body)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body, returns = _rewrite_conditional_returns(s.body)
            if returns:
                out.append(s)
                return out, True
        elif isinstance(s, ast.Try):
            for field in ("body", "orelse", "finalbody"):
                setattr(s, field, _rewrite_conditional_returns(getattr(s, field))[0])
            for h in s.handlers:
                h.body = _rewrite_conditional_returns(h.body)[0]
        out.append(s)
    return out, False


def _returned(value, do_return, retval):
    """``try: do_return = True; retval_ = value`` / ``except: do_return = False; raise``."""
    handler = ast.ExceptHandler(type=None, name=None,
                                body=[_assign(do_return, ast.Constant(False)), ast.Raise(exc=None, cause=None)])
    return ast.Try(body=[_assign(do_return, ast.Constant(True)), _assign(retval, value or ast.Constant(None))],
                   handlers=[handler], orelse=[], finalbody=[])


def _lower_returns(stmts, do_return, retval):
    """Replace ``return v`` by the ``try`` of :func:`_returned` and guard what follows."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.append(ast.copy_location(_returned(s.value, do_return, retval), s))
            return out, True
        may_return = False
        for field in _sub_blocks(s):
            new, r = _lower_returns(getattr(s, field), do_return, retval)
            setattr(s, field, new)
            may_return = may_return or r
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body, r = _lower_returns(h.body, do_return, retval)
                may_return = may_return or r
        if isinstance(s, (ast.While, ast.For)):
            s.body, may_return = _lower_returns(s.body, do_return, retval)
            if may_return:                          # the loop stops once the function has returned
                if isinstance(s, ast.While):
                    s.test = _and(_not(do_return), s.test)
                else:
                    extra = getattr(s, "ag_extra_test", None)
                    s.ag_extra_test = _not(do_return) if extra is None else _and(_not(do_return), extra)
        out.append(s)
        if may_return:
            rest = stmts[i + 1:]
            if rest:
                new_rest, _ = _lower_returns(rest, do_return, retval)
                out.append(_guard(do_return, new_rest))
            return out, True
    return out, False


def lower_returns(body, namer, scope_name="fscope"):
    """Pass 2: a function with a ``return`` ends with ``return <scope_name>.ret(retval_, do_return)``."""
    do_return, retval = namer.new("do_return"), namer.new("retval_")   # (TF names them in any case)
    if not _contains(body, ast.Return, into_loops=True):
        return body
    body, _ = _rewrite_conditional_returns(body)
    lowered, _ = _lower_returns(body, do_return, retval)
    ret = ast.Call(func=ast.Attribute(value=_name(scope_name), attr="ret", ctx=ast.Load()),
                   args=[_name(retval), _name(do_return)], keywords=[])
    return ([_assign(do_return, ast.Constant(False)), _assign(retval, _ag_call("UndefinedReturnValue", []))] +
            lowered + [ast.Return(value=ret)])


# ======================================================================================
# Pass 3: expressions
# ======================================================================================
class ExpressionConverter(ast.NodeTransformer):
    """``and``/``or``/``not``, conditional expressions and calls, in one scope.

    ``scope_name`` is the function scope's name (``fscope``), the last argument of
    ``converted_call``; ``convert_calls=False`` leaves calls alone.
    """

    def __init__(self, convert_calls=True, scope_name="fscope"):
        self.convert_calls = convert_calls
        self.scope_name = scope_name
        self.changed = False

    def visit_FunctionDef(self, node):  # nested functions: converted on their own (or when they are called)
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_For(self, node):
        self.generic_visit(node)
        if getattr(node, "ag_extra_test", None) is not None:
            node.ag_extra_test = self.visit(node.ag_extra_test)
        return node

    def visit_Lambda(self, node):
        self.generic_visit(node)
        if getattr(node, "ag_user", False):   # a lambda of the user's, already converted: TF marks it so
            self.changed = True
            return _ag_call("autograph_artifact", [node])
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        self.changed = True
        function = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):    # a and b and c == a and (b and c)
            result = _ag_call(function, [_lambda(value), _lambda(result)])
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            self.changed = True
            return _ag_call("not_", [node.operand])
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        self.changed = True
        text = ast.unparse(node.test)
        return _ag_call("if_exp", [node.test, _lambda(node.body), _lambda(node.orelse), ast.Constant(text)])

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not self.convert_calls or (isinstance(f, ast.Name) and f.id in _NOT_CONVERTED_CALLS) or \
                (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and
                 f.value.id in ("ag__", self.scope_name)):
            return node
        self.changed = True
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Call(func=_name("dict"), args=[], keywords=node.keywords)
        else:
            kwargs = ast.Constant(None)
        return _ag_call("converted_call", [f, args, kwargs, _name(self.scope_name)])


# ======================================================================================
# Pass 4: control flow
# ======================================================================================
class ControlFlowConverter:
    """Turn ``if``/``while``/``for`` into local functions and one ``ag__`` call (see the module docstring)."""

    def __init__(self, namer, global_names, closure_reads=(), vars_name=None):
        self.namer = namer
        self.global_names = set(global_names)
        self.closure_reads = frozenset(closure_reads)   # read by the user's nested functions: live everywhere
        self.vars_name = vars_name or namer.new("vars_")

    def block(self, stmts, defined):
        """Convert a statement list; ``defined`` = names that have a binding before it."""
        out, defined = [], set(defined)
        for s in stmts:
            if isinstance(s, (ast.If, ast.While, ast.For)):
                modified = assigned(s)
                undefined = [_assign(name, _ag_call("Undefined", [ast.Constant(name)]))
                             for name in tf_set_order(sorted(modified - defined - self.global_names))]
                defined |= modified
                converter = {ast.If: self._if, ast.While: self._while, ast.For: self._for}[type(s)]
                out.extend(converter(s, defined, modified, undefined))
                continue
            if getattr(s, "ag_inline", False):        # a nested function: its body, in its own scope
                s.body = _control_flow(s, s.body, self.namer, self.vars_name)
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                s.body = self.block(s.body, defined | assigned(
                    [item.optional_vars for item in s.items if item.optional_vars is not None]))
            elif isinstance(s, ast.Try):
                s.body = self.block(s.body, defined)
                for h in s.handlers:
                    h.body = self.block(h.body, defined | ({h.name} if h.name else set()))
                s.orelse = self.block(s.orelse, defined | assigned(s.body))
                s.finalbody = self.block(s.finalbody, defined)
            out.append(s)
            defined |= assigned(s)
        return out

    # --- pieces ---------------------------------------------------------------------------
    def _state(self, s, modified):
        """The names ``s`` carries: assigned in it and live after it (its outputs, counted), then those
        assigned in it that only its own code reads; each group sorted. (What a nested function of the
        user's reads counts as live after every statement: it may be called anywhere.)"""
        live_in, live_out = s.ag_live_in, s.ag_live_out | self.closure_reads
        outputs = sorted(modified & live_out)
        inputs = sorted((modified & live_in) - live_out)
        return outputs + inputs, len(outputs)

    def _declarations(self, names):
        decls = []
        names = tf_set_order(names)
        glob = [n for n in names if n in self.global_names]
        local = [n for n in names if n not in self.global_names]
        if glob:
            decls.append(ast.Global(names=glob))
        if local:
            decls.append(ast.Nonlocal(names=local))
        return decls

    def _state_functions(self, names):
        """``get_state()`` returns the values of ``names``; ``set_state(vars_)`` assigns them."""
        get_state, set_state = self.namer.new("get_state"), self.namer.new("set_state")
        values = ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load())
        getter = _function_def(get_state, [], [ast.Return(value=values)])
        if names:
            targets = ast.Tuple(elts=[_name(n, store=True) for n in names], ctx=ast.Store())
            setter = _function_def(set_state, [self.vars_name], self._declarations(names) + [
                ast.Assign(targets=[targets], value=_name(self.vars_name))])
        else:
            setter = _function_def(set_state, ["block_vars"], [ast.Pass()])
        return get_state, set_state, [getter, setter]

    def _options(self, loop, extra=()):
        keys = [ast.Constant(k.arg) for k in loop.ag_options] + [ast.Constant(k) for k, _ in extra]
        values = [k.value for k in loop.ag_options] + [ast.Constant(v) for _, v in extra]
        return ast.Dict(keys=keys, values=values)

    # --- statements (inner statements first: generated names are numbered as in TF) ---------
    def _if(self, s, defined, modified, undefined):
        state, nouts = self._state(s, modified)
        body_code, orelse_code = self.block(s.body, defined), self.block(s.orelse, defined)
        get_state, set_state, state_defs = self._state_functions(state)
        if_body, else_body = self.namer.new("if_body"), self.namer.new("else_body")
        body = _function_def(if_body, [], self._declarations(state) + body_code)
        orelse = _function_def(else_body, [], self._declarations(state) + orelse_code)
        call = _ag_call("if_stmt", [s.test, _name(if_body), _name(else_body), _name(get_state), _name(set_state),
                                    _strings(state), ast.Constant(nouts)])
        return state_defs + [body, orelse] + undefined + [_at(ast.Expr(value=call), s)]

    def _while(self, s, defined, modified, undefined):
        loop_vars, _ = self._state(s, modified)
        body_code = self.block(s.body, defined)
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        loop_body, loop_test = self.namer.new("loop_body"), self.namer.new("loop_test")
        body = _function_def(loop_body, [], self._declarations(loop_vars) + body_code)
        test = _function_def(loop_test, [], [ast.Return(value=s.test)])
        call = _ag_call("while_stmt", [_name(loop_test), _name(loop_body), _name(get_state), _name(set_state),
                                       _strings(loop_vars), self._options(s)])
        return state_defs + [body, test] + undefined + [_at(ast.Expr(value=call), s)]

    def _for(self, s, defined, modified, undefined):
        loop_vars, _ = self._state(s, modified)
        body_code = self.block(s.body, defined)
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        extra_defs, extra_test = [], ast.Constant(None)
        if s.ag_extra_test is not None:
            name = self.namer.new("extra_test")
            extra_defs.append(_function_def(name, [], self._declarations(loop_vars) +
                                            [ast.Return(value=s.ag_extra_test)]))
            extra_test = _name(name)
        itr = self.namer.new("itr")
        loop_body = self.namer.new("loop_body")
        target = ast.Assign(targets=[copy.deepcopy(s.target)], value=_name(itr))
        body = _function_def(loop_body, [itr], self._declarations(loop_vars) + [target] + body_code)
        opts = self._options(s, [("iterate_names", ast.unparse(s.target))])
        call = _ag_call("for_stmt", [s.iter, extra_test, _name(loop_body), _name(get_state), _name(set_state),
                                     _strings(loop_vars), opts])
        return state_defs + [body] + extra_defs + undefined + [_at(ast.Expr(value=call), s)]


def _at(node, statement):
    """``node`` at the user's ``statement``: a traceback through the ``if_stmt`` / ``while_stmt`` /
    ``for_stmt`` call shows the line of the ``if`` / ``while`` / ``for`` it replaces."""
    return ast.copy_location(node, statement)


# ======================================================================================
# Pass 5: variables
# ======================================================================================
class VariableLoads(ast.NodeTransformer):
    """The user's reads of names go through ``ag__.ld``; ``x += 1`` loads ``x`` first; ``del x`` undefines it.

    Only names of the original code (tagged before the other passes) are wrapped, not the
    names the passes generate; the user's nested functions and classes are left alone.
    """

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and getattr(node, "ag_load", False):
            return ast.copy_location(_ag_call("ld", [node]), node)
        return node

    def visit_FunctionDef(self, node):
        if getattr(node, "ag_user", False) and not getattr(node, "ag_inline", False):
            return node
        node.body = self.block(node.body)       # (not its decorators, arguments and defaults)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return node

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            load = _assign(node.target.id, _ag_call("ld", [_name(node.target.id)]))
            return [load, node]
        return self.generic_visit(node)

    def visit_Delete(self, node):
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            return self.generic_visit(node)
        others = [t for t in node.targets if not isinstance(t, ast.Name)]
        out = [_assign(t.id, _ag_call("Undefined", [ast.Constant(t.id)])) for t in names]
        if others:
            node.targets = others
            out.insert(0, self.generic_visit(node))
        return out

    def block(self, stmts):
        module = self.visit(ast.Module(body=list(stmts), type_ignores=[]))
        return module.body


# ======================================================================================
# Whole functions
# ======================================================================================
def mangle_private_names(node, class_name):
    """Python's private-name mangling (``self.__x`` -> ``self._Cls__x``): the code is recompiled outside its class."""
    prefix = "_" + class_name.lstrip("_")
    if prefix == "_":
        return

    def fix(name):
        return prefix + name if name.startswith("__") and not name.endswith("__") else name
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            n.id = fix(n.id)
        elif isinstance(n, ast.Attribute):
            n.attr = fix(n.attr)
        elif isinstance(n, ast.arg):
            n.arg = fix(n.arg)


def _declared(body, kind):
    return {name for s in body for n in ast.walk(s) if isinstance(n, kind) for name in n.names} if body else set()


def _nested_functions(stmts):
    """The user's ``def`` s inside ``stmts`` converted with it, as TF does (outer first): plain functions (not
    generators, not decorated), not inside classes or lambdas; then those nested in them."""
    found = []
    for s in stmts:
        for x in _walk_own_scope(s):
            if isinstance(x, ast.FunctionDef) and not x.decorator_list and \
                    not any(isinstance(y, (ast.Yield, ast.YieldFrom, ast.Await)) for y in _walk_own_scope_body(x)):
                found.append(x)
    found.sort(key=lambda x: (x.lineno, x.col_offset))
    out = []
    for x in found:
        x.ag_inline = True
        out.append(x)
        out.extend(_nested_functions(x.body))
    return out


def _walk_own_scope_body(function):
    for s in function.body:
        yield from _walk_own_scope(s)


def _split_docstring(body):
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        return body[:1], body[1:]
    return [], body


def _control_flow(function, body, namer, vars_name=None):
    """Passes 4 (after the liveness analysis) on the body of ``function``, in its own scope."""
    global_names = {n for s in body for x in _walk_own_scope(s) if isinstance(x, ast.Global) for n in x.names}
    nonlocal_names = {n for s in body for x in _walk_own_scope(s) if isinstance(x, ast.Nonlocal) for n in x.names}
    annotate_liveness(body, live_at_exit=global_names | nonlocal_names)
    args = function.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    closure_reads = set()
    for s in body:
        for x in _walk_own_scope(s):
            if isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef)) and getattr(x, "ag_user", False):
                closure_reads |= _free_reads(x)
    converter = ControlFlowConverter(namer, global_names, closure_reads, vars_name)
    return converter.block(body, params | global_names | nonlocal_names)


def _function_scope(name, scope_name, options, body):
    scope = ast.Call(func=ast.Attribute(value=_name("ag__"), attr="FunctionScope", ctx=ast.Load()),
                     args=[ast.Constant(name), ast.Constant(scope_name), options], keywords=[])
    return ast.With(items=[ast.withitem(context_expr=scope, optional_vars=_name(scope_name, True))],
                    body=body or [ast.Pass()])


def convert_function(node, recursive=True, class_name=None):
    """Convert an ``ast.FunctionDef`` in place; returns it (renamed ``tf__<name>``).

    The ``def`` s nested in it are converted with it (each in its own ``FunctionScope``, marked
    ``@ag__.autograph_artifact`` so that calling it does not convert it again), as TF does.
    """
    node.decorator_list = []
    if class_name:
        mangle_private_names(node, class_name)
    namer = Namer(node)
    docstring, body = _split_docstring(node.body)
    _mark_user_code(body)
    nested = _nested_functions(body)
    scope_name = namer.new("fscope")
    for f in nested:
        f.ag_docstring, f.body = _split_docstring(f.body)
        f.ag_scope_name = namer.new("fscope")
    body = lower_loop_jumps(body, namer)
    body = lower_returns(body, namer, scope_name)
    for f in nested:
        f.body = lower_returns(f.body, namer, f.ag_scope_name)
    body = [ExpressionConverter(scope_name=scope_name).visit(s) for s in body]
    for f in nested:
        f.body = [ExpressionConverter(scope_name=f.ag_scope_name).visit(s) for s in f.body]
    body = _control_flow(node, body, namer)
    body = VariableLoads().block(body)
    for f in nested:
        options = _expr("ag__.STD") if recursive else _expr(
            "ag__.ConversionOptions(recursive=False, user_requested=False, optional_features=(), "
            "internal_convert_user_code=False)")
        f.body = f.ag_docstring + [_function_scope(f.name, f.ag_scope_name, options, f.body)]
        f.decorator_list = [_expr("ag__.autograph_artifact")]
    node.body = docstring + [_function_scope(node.name, scope_name, conversion_options(recursive), body)]
    node.name = "tf__" + node.name
    return ast.fix_missing_locations(node)


def _walk_own_scope(node):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def convert_lambda(node, recursive=True):
    """Convert an ``ast.Lambda``: ``lambda x: ag__.with_function_scope(lambda lscope: <body>, 'lscope', options)``.

    Its body is an expression: only its calls and ``and``/``or``/``not``/``if`` expressions change
    (TF adds no ``ag__.ld`` there).
    """
    scope_name = Namer(node).new("lscope")
    body = ExpressionConverter(scope_name=scope_name).visit(node.body)
    node.body = _ag_call("with_function_scope", [_lambda(body, [scope_name]), ast.Constant(scope_name),
                                                 conversion_options(recursive)])
    return ast.fix_missing_locations(node)
