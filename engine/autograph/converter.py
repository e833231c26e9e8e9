"""AutoGraph's source transformation, one pass at a time.

``convert_function(node)`` takes the ``ast.FunctionDef`` of a user function and
rewrites it so that every piece of control flow becomes a *call* into
``ag__`` (``operators.py``), which decides at trace time whether to run it as
Python or to stage it as graph control flow. The passes, in order:

1. **break / continue** (:func:`lower_loop_jumps`): jumps become flags, and the
   statements a jump would skip are guarded::

       while i < n:                       break_ = False
           if x[i] < 0:                   while not break_ and i < n:
               break             ==>          if x[i] < 0:
           s += x[i]                              break_ = True
                                              if not break_:
                                                  s += x[i]

2. **return** (:func:`lower_returns`): a ``return`` inside control flow becomes
   ``retval_ = value; do_return = True``, what follows is guarded by
   ``if not do_return:``, loops also stop on ``do_return``, and the function
   ends with one ``return``. First, ``if c: return a`` followed by more code
   moves that code into the ``else`` (so both branches return).
3. **expressions** (:class:`ExpressionConverter`): ``a and b`` ->
   ``ag__.and_(lambda: a, lambda: b)`` (lazy, like Python), ``not a`` ->
   ``ag__.not_(a)``, ``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, ...)``,
   and with ``recursive=True`` every call ``f(x)`` ->
   ``ag__.converted_call(f, (x,), None)`` (so functions it calls are converted too).
4. **control flow** (:class:`ControlFlowConverter`), using the liveness analysis
   of ``static_analysis.py``. Each statement becomes local functions plus one
   call (this is ``tf.autograph.to_code`` 's real output)::

       def f(x):                          def tf__f(x):
           if x > 0:                          y = ag__.Undefined('y')
               y = x                          def get_state():
           else:                                  return (y,)
               y = -x                         def set_state(vars_):
           return y                               nonlocal y
                                                  y, = vars_
                              ==>             def if_body():
                                                  nonlocal y
                                                  y = x
                                              def else_body():
                                                  nonlocal y
                                                  y = -x
                                              ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state,
                                                           ('y',), 1)
                                              return y

   ``y`` is the statement's only *output* (assigned in a branch, read after
   the ``if``). A variable a statement may assign but that is not defined yet
   is first set to ``ag__.Undefined('name')``: the ``nonlocal`` declarations
   then always find a binding, and a tensor ``if`` that defines a variable in
   only one branch is reported with TF's message. Loops look alike:
   ``ag__.while_stmt(loop_test, loop_body, get_state, set_state, names, opts)``
   and ``ag__.for_stmt(iter, extra_test, loop_body, ...)``, whose state is the
   *loop variables* (assigned in the loop, live at its head).
"""
import ast
import copy

from .static_analysis import annotate_liveness, assigned

__all__ = ["convert_function", "convert_lambda", "mangle_private_names", "Namer"]

_COMPOUND = (ast.If, ast.With, ast.Try)
_NOT_CONVERTED_CALLS = frozenset([
    "super", "locals", "globals", "vars", "eval", "exec", "dir", "print", "isinstance", "issubclass", "hasattr",
    "getattr", "setattr", "callable", "type", "id", "repr", "str"])


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


def _lambda(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=body)


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


def lower_loop_jumps(stmts, namer):
    """Pass 1 over a statement list: lower ``break``/``continue`` in every loop (innermost first)."""
    out = []
    for s in stmts:
        for field in _sub_blocks(s):
            setattr(s, field, lower_loop_jumps(getattr(s, field), namer))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = lower_loop_jumps(h.body, namer)
        if not isinstance(s, (ast.While, ast.For)):
            out.append(s)
            continue
        _extract_loop_options(s)
        s.body = lower_loop_jumps(s.body, namer)
        s.ag_extra_test = None
        orelse, s.orelse = lower_loop_jumps(s.orelse, namer), []
        before = []
        if _contains(s.body, ast.Continue):
            flag = namer.new("continue_")
            body, _ = _replace_jumps(s.body, ast.Continue, flag)
            s.body = [_assign(flag, ast.Constant(False))] + body
        if _contains(s.body, ast.Break):
            flag = namer.new("break_")
            s.body, _ = _replace_jumps(s.body, ast.Break, flag)
            before.append(_assign(flag, ast.Constant(False)))
            if isinstance(s, ast.While):
                s.test = _and(_not(flag), s.test)
            else:
                s.ag_extra_test = _not(flag)
            orelse = [_guard(flag, orelse)] if orelse else []
        out.extend(before + [s] + orelse)        # a loop's `else:` runs after it unless it was broken
    return out


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


def _lower_returns(stmts, do_return, retval):
    """Replace ``return v`` by ``retval_ = v; do_return = True`` and guard what follows."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            # the value first: if computing it raises, the function has not returned
            out += [_assign(retval, s.value or ast.Constant(None)), _assign(do_return, ast.Constant(True))]
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


def lower_returns(body, namer):
    """Pass 2: only functions with a ``return`` inside control flow need it."""
    if not any(_contains([s], ast.Return, into_loops=True) for s in body if not isinstance(s, ast.Return)):
        return body
    body, _ = _rewrite_conditional_returns(body)
    do_return, retval = namer.new("do_return"), namer.new("retval_")
    lowered, _ = _lower_returns(body, do_return, retval)
    return ([_assign(do_return, ast.Constant(False)), _assign(retval, _ag_call("UndefinedReturnValue", []))] +
            lowered + [ast.Return(value=_ag_call("retval", [_name(retval)]))])


# ======================================================================================
# Pass 3: expressions
# ======================================================================================
class ExpressionConverter(ast.NodeTransformer):
    """``and``/``or``/``not``, conditional expressions and (optionally) calls, in one scope."""

    def __init__(self, convert_calls=True):
        self.convert_calls = convert_calls
        self.changed = False

    def visit_FunctionDef(self, node):  # nested functions are converted when they are called
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_For(self, node):
        self.generic_visit(node)
        if getattr(node, "ag_extra_test", None) is not None:
            node.ag_extra_test = self.visit(node.ag_extra_test)
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
        text = ast.unparse(node)
        self.generic_visit(node)
        self.changed = True
        return _ag_call("if_exp", [node.test, _lambda(node.body), _lambda(node.orelse), ast.Constant(text)])

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not self.convert_calls or (isinstance(f, ast.Name) and f.id in _NOT_CONVERTED_CALLS) or \
                (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "ag__"):
            return node
        self.changed = True
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Dict(keys=[None if k.arg is None else ast.Constant(k.arg) for k in node.keywords],
                              values=[k.value for k in node.keywords])
        else:
            kwargs = ast.Constant(None)
        return _ag_call("converted_call", [f, args, kwargs])


# ======================================================================================
# Pass 4: control flow
# ======================================================================================
class ControlFlowConverter:
    """Turn ``if``/``while``/``for`` into local functions and one ``ag__`` call (see the module docstring)."""

    def __init__(self, namer, global_names):
        self.namer = namer
        self.global_names = set(global_names)
        self.vars_name = namer.new("vars_")
        self.itr_name = namer.new("itr")

    def block(self, stmts, defined):
        """Convert a statement list; ``defined`` = names that have a binding before it."""
        out, defined = [], set(defined)
        for s in stmts:
            if isinstance(s, (ast.If, ast.While, ast.For)):
                modified = assigned(s)
                for name in sorted(modified - defined - self.global_names):
                    out.append(_assign(name, _ag_call("Undefined", [ast.Constant(name)])))
                defined |= modified
                converter = {ast.If: self._if, ast.While: self._while, ast.For: self._for}[type(s)]
                out.extend(converter(s, defined, modified))
                continue
            if isinstance(s, (ast.With, ast.AsyncWith)):
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
    def _declarations(self, names):
        decls = []
        local = sorted(set(names) - self.global_names)
        glob = sorted(set(names) & self.global_names)
        if local:
            decls.append(ast.Nonlocal(names=local))
        if glob:
            decls.append(ast.Global(names=glob))
        return decls

    def _state_functions(self, names):
        """``get_state()`` returns the values of ``names``; ``set_state(vars_)`` assigns them."""
        get_state, set_state = self.namer.new("get_state"), self.namer.new("set_state")
        values = ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load())
        getter = _function_def(get_state, [], [ast.Return(value=values)])
        if names:
            targets = ast.Tuple(elts=[_name(n, store=True) for n in names], ctx=ast.Store())
            setter_body = self._declarations(names) + [ast.Assign(targets=[targets], value=_name(self.vars_name))]
        else:
            setter_body = [ast.Pass()]
        setter = _function_def(set_state, [self.vars_name], setter_body)
        return get_state, set_state, [getter, setter]

    def _options(self, loop, extra=()):
        keys = [ast.Constant(k) for k, _ in extra] + [ast.Constant(k.arg) for k in loop.ag_options]
        values = [ast.Constant(v) for _, v in extra] + [k.value for k in loop.ag_options]
        return ast.Dict(keys=keys, values=values)

    # --- statements -------------------------------------------------------------------------
    def _if(self, s, defined, modified):
        outputs = sorted(modified & s.ag_live_out)
        get_state, set_state, state_defs = self._state_functions(outputs)
        if_body, else_body = self.namer.new("if_body"), self.namer.new("else_body")
        body = _function_def(if_body, [], self._declarations(modified) + self.block(s.body, defined))
        orelse = _function_def(else_body, [], self._declarations(modified) + self.block(s.orelse, defined))
        call = _ag_call("if_stmt", [s.test, _name(if_body), _name(else_body), _name(get_state), _name(set_state),
                                    _strings(outputs), ast.Constant(len(outputs))])
        return state_defs + [body, orelse, ast.Expr(value=call)]

    def _while(self, s, defined, modified):
        loop_vars = sorted(modified & s.ag_live_at_head)
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        loop_body, loop_test = self.namer.new("loop_body"), self.namer.new("loop_test")
        body = _function_def(loop_body, [], self._declarations(modified) + self.block(s.body, defined))
        test = _function_def(loop_test, [], [ast.Return(value=s.test)])
        call = _ag_call("while_stmt", [_name(loop_test), _name(loop_body), _name(get_state), _name(set_state),
                                       _strings(loop_vars), self._options(s)])
        return state_defs + [body, test, ast.Expr(value=call)]

    def _for(self, s, defined, modified):
        loop_vars = sorted(modified & s.ag_live_at_head)
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        loop_body = self.namer.new("loop_body")
        target = ast.Assign(targets=[copy.deepcopy(s.target)], value=_name(self.itr_name))
        body = _function_def(loop_body, [self.itr_name],
                             self._declarations(modified) + [target] + self.block(s.body, defined))
        defs = state_defs + [body]
        extra_test = ast.Constant(None)
        if s.ag_extra_test is not None:
            name = self.namer.new("extra_test")
            defs.append(_function_def(name, [], [ast.Return(value=s.ag_extra_test)]))
            extra_test = _name(name)
        opts = self._options(s, [("iterate_names", ast.unparse(s.target))])
        call = _ag_call("for_stmt", [s.iter, extra_test, _name(loop_body), _name(get_state), _name(set_state),
                                     _strings(loop_vars), opts])
        return defs + [ast.Expr(value=call)]


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


def convert_function(node, recursive=True, class_name=None):
    """Convert an ``ast.FunctionDef`` in place; returns it (renamed ``tf__<name>``)."""
    node.decorator_list = []
    if class_name:
        mangle_private_names(node, class_name)
    namer = Namer(node)
    body = node.body
    docstring = []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        docstring, body = body[:1], body[1:]
    body = lower_loop_jumps(body, namer)
    body = lower_returns(body, namer)
    expressions = ExpressionConverter(convert_calls=recursive)
    body = [expressions.visit(s) for s in body]
    global_names = {n for s in body for x in _walk_own_scope(s) if isinstance(x, ast.Global) for n in x.names}
    nonlocal_names = {n for s in body for x in _walk_own_scope(s) if isinstance(x, ast.Nonlocal) for n in x.names}
    annotate_liveness(body, live_at_exit=global_names | nonlocal_names)
    params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
    body = ControlFlowConverter(namer, global_names).block(body, params | global_names | nonlocal_names)
    node.body = docstring + (body or [ast.Pass()])
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
    """Convert an ``ast.Lambda`` (its expression: no statements there); None if nothing changes."""
    expressions = ExpressionConverter(convert_calls=recursive)
    node.body = expressions.visit(node.body)
    return ast.fix_missing_locations(node) if expressions.changed else None
