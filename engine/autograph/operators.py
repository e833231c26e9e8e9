"""The runtime of converted code: everything the generated ``ag__.xxx(...)`` calls.

The converter (``converter.py``) rewrites syntax into calls; the decision of
*what the code means* is made here, at trace time, by looking at the values:

* a **symbolic tensor** condition (inside ``tf.function``) stages graph control
  flow: ``if_stmt`` builds a ``tf.cond``, ``while_stmt``/``for_stmt`` build a
  ``tf.while_loop``;
* **anything else** (a Python bool, a Python ``range``, an eager tensor) keeps
  Python's meaning: the branch is chosen, the loop unrolled, at trace time.

These are the public operators: the output of any converter calls them
(the engine's ``converter.py``, or one filling the ``autograph`` seam, see
``api.py``), as ``ag__.if_stmt(...)`` etc. The statement operators receive the
statement as functions (TF's protocol)::

    if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    while_stmt(test, body, get_state, set_state, symbol_names, opts)
    for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)

``body()``/``orelse()`` run the original statements; they read and write the
user's variables through ``nonlocal``. ``get_state()`` returns the current
values of the statement's outputs or loop variables (named ``symbol_names``)
and ``set_state(values)`` writes them back. That is all a staged loop needs:
set the loop variables to the placeholders of the body graph, call ``body()``,
read the new values with ``get_state()``.

**Iterating other things** (the protocol ``tf.data.Dataset`` implements): an
object with a method ``_autograph_for_stmt(extra_test, body, get_state,
set_state, symbol_names, opts)`` takes over ``for x in obj``, eagerly and in
graphs. It must call ``body(element)`` for each element (staging a loop if it
likes: set the loop variables with ``set_state``, call ``body``, read them
back with ``get_state``), stop early when ``extra_test()`` (if not None) is
False (``break``/``return`` in the loop), and leave the final values of the
loop variables set with ``set_state``.
"""
import builtins

import numpy as np

from ..framework.context import ctx
from ..framework.errors import OperatorNotAllowedInGraphError
from ..framework.graph import SymbolicTensor, constant_value, control_dependencies
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, control_flow_ops, math_ops
from ..util import nest

__all__ = ["if_stmt", "while_stmt", "for_stmt", "if_exp", "and_", "or_", "not_", "Undefined",
           "UndefinedReturnValue", "retval", "ld", "ldu", "converted_call", "range_", "len_", "ConversionOptions",
           "STD", "FunctionScope", "with_function_scope", "autograph_artifact"]

_DOCS = "See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/" \
        "limitations.md#consistency-of-control-flow-types for more info."


# ======================================================================================
# Special values
# ======================================================================================
class Undefined:
    """The value of a variable that is not defined yet (``y = ag__.Undefined('y')``).

    Converted code creates every variable a statement may assign before the
    statement runs, so the generated ``nonlocal`` declarations and
    ``get_state`` calls always find a binding. Using the value is an error.
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return self.symbol_name


class UndefinedReturnValue:
    """The return value of a function before any ``return`` ran (``retval_``)."""

    __slots__ = ()


def retval(value):
    """The function's result: ``None`` if no ``return`` statement ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


def ld(value):
    """``ag__.ld(x)``: the value of a variable the user's code reads.

    A variable that has no value yet holds an ``Undefined``; reading it is Python's
    error for a local read before assignment (``UnboundLocalError``), as in TF.
    """
    if isinstance(value, Undefined):
        raise UnboundLocalError(f"'{value.symbol_name}' is used before assignment")
    return value


def ldu(load, name):
    """``ag__.ldu(lambda: x, 'x')``: ``load()``, or ``Undefined(name)`` if that fails to find the value."""
    try:
        return load()
    except (KeyError, AttributeError, NameError):
        return Undefined(name)


# ======================================================================================
# Function scopes
# ======================================================================================
class ConversionOptions:
    """How a function was converted (``ag__.ConversionOptions(recursive=True, ...)`` in converted code).

    ``recursive``: the functions it calls are converted too (by ``converted_call``);
    ``user_requested``: the conversion was asked for (``tf.function``, ``to_graph``);
    ``optional_features``: accepted, not acted on (see ``tf.autograph.experimental.Feature``).
    """

    def __init__(self, recursive=False, user_requested=False, internal_convert_user_code=True,
                 optional_features=None):
        self.recursive = recursive
        self.user_requested = user_requested
        self.internal_convert_user_code = internal_convert_user_code
        if optional_features is None:
            optional_features = ()
        elif not isinstance(optional_features, (set, list, tuple)):
            optional_features = (optional_features,)
        self.optional_features = frozenset(optional_features)

    def uses(self, feature):
        return feature in self.optional_features or any(getattr(f, "name", f) == "ALL"
                                                        for f in self.optional_features)

    def call_options(self):
        """The options of the functions this one calls: recursive as this one, never user-requested."""
        return ConversionOptions(recursive=self.recursive, user_requested=False,
                                 internal_convert_user_code=self.recursive,
                                 optional_features=self.optional_features)

    def __repr__(self):
        return f"ConversionOptions[{{}}]"


STD = ConversionOptions(recursive=True)


class FunctionScope:
    """``with ag__.FunctionScope('f', 'fscope', options) as fscope:``, around a converted function's body.

    It holds the options the function was converted with (``converted_call`` reads
    them: ``fscope.callopts``), and ``fscope.ret(retval_, do_return)`` gives the
    function's result: the value, or ``None`` when no ``return`` ran.
    """

    def __init__(self, function_name, scope_name, options):
        self.function_name = function_name
        self.name = scope_name
        self.options = options
        self.callopts = options.call_options()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def ret(self, value, did_return):
        """What the function returns: ``value``, or None if it is still the ``UndefinedReturnValue``."""
        del did_return
        if isinstance(value, UndefinedReturnValue):
            return None
        return value


def with_function_scope(thunk, scope_name, options):
    """A converted lambda's body: ``thunk(scope)`` inside a :class:`FunctionScope`."""
    with FunctionScope("lambda_", scope_name, options) as scope:
        return thunk(scope)


def autograph_artifact(entity):
    """Mark a function made by converted code (a lambda of converted code): ``converted_call`` runs it as is."""
    try:
        entity.__ag_converted__ = True
    except AttributeError:
        pass
    return entity


def _is_none_or_undef(value):
    return value is None or isinstance(value, (Undefined, UndefinedReturnValue))


# ======================================================================================
# What is "a tensor condition"?
# ======================================================================================
def _is_staged(value):
    """True if ``value`` is known only when the graph runs: a symbolic tensor (or a variable in a graph)."""
    if isinstance(value, SymbolicTensor):
        return True
    return hasattr(value, "_is_variable") and ctx.graph is not None


def _scratch_graph():
    """A throwaway sub-graph of the graph being built, to peek at a value without leaving ops behind."""
    return control_flow_ops.ControlFlowGraph("tmp", ctx.graph).as_default()


def _verify_tf_condition(cond, tag):
    """The condition as a scalar bool tensor, or TF's ValueError."""
    extra_hint = "to check for None, use `is not None`"
    cond = convert_to_tensor(cond)
    if cond.dtype.name != "bool":
        raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; to use as boolean Tensor, "
                         f"use `tf.cast`; {extra_hint}")
    if cond.shape.rank is None:
        return array_ops.reshape(cond, [])
    if cond.shape.rank > 0:
        known = [d for d in cond.shape.as_list() if d is not None]
        if np.prod(known) > 1:
            raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; {extra_hint}")
        return array_ops.reshape(cond, [])
    return cond


def _as_tensor_for_check(value):
    if isinstance(value, (bool, int, float, str, np.ndarray)):
        return convert_to_tensor(value)
    return value


# ======================================================================================
# if
# ======================================================================================
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """``if cond: body() else: orelse()``; a tensor ``cond`` becomes ``tf.cond``.

    The first ``nouts`` names of ``symbol_names`` are the statement's outputs:
    the variables the branches assign and the code after the ``if`` reads.
    """
    if _is_staged(cond):
        _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    elif cond:
        body()
    else:
        orelse()


def _verify_branch_vars(values, symbol_names, branch_name):
    for name, value in zip(symbol_names, values):
        if isinstance(value, Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {branch_name} branch")
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(f"the {branch_name} branch must also have a return statement.")


def _verify_single_cond_var(name, body_var, orelse_var):
    if body_var is None:
        raise ValueError(f"'{name}' is None at the end of the main branch.")
    if orelse_var is None:
        raise ValueError(f"'{name}' is None at the end of the else branch.")
    body_var, orelse_var = _as_tensor_for_check(body_var), _as_tensor_for_check(orelse_var)
    if isinstance(body_var, Tensor) and isinstance(orelse_var, Tensor) and body_var.dtype != orelse_var.dtype:
        raise TypeError(f"'{name}' has dtype {body_var.dtype.name} in the main branch, but dtype "
                        f"{orelse_var.dtype.name} in the else branch")


def _verify_cond_vars(body_vars, orelse_vars, symbol_names):
    for name, body_var, orelse_var in zip(symbol_names, body_vars, orelse_vars):
        try:
            nest.assert_same_structure(body_var, orelse_var)
        except (ValueError, TypeError) as error:
            raise TypeError(f"'{name}' must have the same nested structure in the main and else branches:\n\n"
                            f"{error}") from None
        for a, b in zip(nest.flatten(body_var), nest.flatten(orelse_var)):
            _verify_single_cond_var(name, a, b)


def _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    cond = _verify_tf_condition(cond, "if statement")
    init_vars = get_state()
    done = {}

    def branch(fn, name, other):
        def traced():
            set_state(init_vars)     # each branch starts from the values before the if
            fn()
            values = tuple(get_state())[:nouts]
            _verify_branch_vars(values, symbol_names, name)
            if other in done:
                main, alt = (values, done[other]) if name == "main" else (done[other], values)
                _verify_cond_vars(main, alt, symbol_names)
            done[name] = values
            return values
        return traced

    final = control_flow_ops.cond(cond, branch(body, "main", "else"), branch(orelse, "else", "main"))
    set_state(tuple(final) + tuple(init_vars)[nouts:])


def if_exp(cond, if_true, if_false, expr_repr):
    """``a if cond else b``; a tensor ``cond`` becomes ``tf.cond``."""
    if _is_staged(cond):
        cond = _verify_tf_condition(cond, f"expression {expr_repr}")
        return control_flow_ops.cond(cond, if_true, if_false)
    return if_true() if cond else if_false()


# ======================================================================================
# and, or, not
# ======================================================================================
def and_(a, b):
    """``a and b`` with lazy ``b``: for a tensor ``a``, ``tf.cond(a, b, lambda: a)``."""
    value = a()
    if _is_staged(value):
        return control_flow_ops.cond(value, b, lambda: value)
    return value and b()


def or_(a, b):
    """``a or b`` with lazy ``b``: for a tensor ``a``, ``tf.cond(a, lambda: a, b)``."""
    value = a()
    if _is_staged(value):
        return control_flow_ops.cond(value, lambda: value, b)
    return value or b()


def not_(a):
    """``not a``: ``tf.logical_not`` for tensors (eager ones too, as TF does)."""
    if isinstance(a, Tensor) or _is_staged(a):
        return math_ops.logical_not(a)
    return not a


# ======================================================================================
# while
# ======================================================================================
def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """``while test(): body()``; a tensor ``test()`` becomes ``tf.while_loop``.

    The test is evaluated once (in a scratch graph) to decide. A Python loop
    has then consumed that evaluation, so it unrolls one iteration first.
    """
    if ctx.graph is not None:
        with _scratch_graph():
            init_test = test()
        if _is_staged(init_test):
            _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts)
            return
    else:
        init_test = test()
    if not init_test:
        return
    body()
    _py_while_stmt(test, body)


def _py_while_stmt(test, body):
    def guarded_test():
        result = test()
        try:
            return bool(result)
        except OperatorNotAllowedInGraphError as error:
            raise NotImplementedError(
                "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either "
                "because variables changed type, or when a break or return statement inside the loop depends on a "
                "Tensor condition. In both cases, changing to a TF loop should remove the error.\n" + _DOCS) from error
    while guarded_test():
        body()


def _is_subshape(left, right):
    """True if ``left`` is at least as specific as ``right``."""
    if right.rank is None:
        return True
    if left.rank != right.rank:
        return False
    return all(r is None or l_ == r for l_, r in zip(left.as_list(), right.as_list()))


def _verify_single_loop_var(name, init, entry, exit_, invariant):
    if exit_ is None:
        raise ValueError(f"'{name}' is None at the end of the iteration.")
    init, entry, exit_ = (_as_tensor_for_check(v) for v in (init, entry, exit_))
    if not (isinstance(entry, Tensor) and isinstance(exit_, Tensor)):
        return
    if entry.dtype != exit_.dtype:
        raise TypeError(f"'{name}' has dtype {entry.dtype.name} before the loop, but dtype {exit_.dtype.name} after "
                        f"one iteration")
    if invariant is None:
        if not _is_subshape(exit_.shape, entry.shape):
            raise ValueError(f"'{name}' has shape {entry.shape} before the loop, but shape {exit_.shape} after one "
                             f"iteration. Use tf.autograph.experimental.set_loop_options to set shape invariants.")
    else:
        if isinstance(init, Tensor) and not _is_subshape(init.shape, invariant):
            raise ValueError(f"'{name}' has shape {init.shape} before the loop, which does not conform with the shape "
                             f"invariant {invariant}.")
        if not _is_subshape(exit_.shape, invariant):
            raise ValueError(f"'{name}' has shape {exit_.shape} after one iteration, which does not conform with "
                             f"the shape invariant {invariant}.")


def _verify_loop_vars(init_vars, entry_vars, exit_vars, symbol_names, invariants):
    for name, init, entry, exit_, invariant in zip(symbol_names, init_vars, entry_vars, exit_vars, invariants):
        try:
            nest.assert_same_structure(entry, exit_, check_types=False)
        except (ValueError, TypeError) as error:
            raise TypeError(f"'{name}' does not have the same nested structure after one iteration.\n\n"
                            f"{error}") from None
        leaves = zip(nest.flatten(init), nest.flatten(entry), nest.flatten(exit_),
                     nest.flatten(invariant) if invariant is not None else [None] * len(nest.flatten(entry)))
        for i, en, ex, inv in leaves:
            _verify_single_loop_var(name, i, en, ex, inv)


def _verify_loop_init_vars(init_vars, symbol_names, first_iter_vars=None, extra_message=None):
    first_iter_vars = first_iter_vars or (None,) * len(symbol_names)
    for name, value, first in zip(symbol_names, init_vars, first_iter_vars):
        if isinstance(value, UndefinedReturnValue):
            if first:
                raise ValueError(f"the return value from a TensorFlow loop may only be a Tensor, int, float, bool or "
                                 f"a list, tuple or dict thereof; got {type(first)}")
            raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may "
                                      "happen if a return statement depends on a static Python condition such as a "
                                      "hyperparameter")
        message = None
        if value is None:
            message = f"'{name}' is not allowed to be None before the loop"
        elif isinstance(value, Undefined):
            message = f"'{name}' must be defined before the loop"
            if extra_message:
                message += "\n" + extra_message
        if message is not None:
            raise ValueError(message)


def _placeholder_value(like, invariant, original):
    """A dummy initial value shaped like the first iteration's ``like`` (for a variable defined in the loop)."""
    if like is None or isinstance(like, (Undefined, UndefinedReturnValue)):
        return original, None
    if isinstance(like, (bool, int, float)):
        return type(like)(0), None
    if isinstance(like, Tensor):
        shape = invariant if invariant is not None else like.shape
        if shape.rank is None:
            return array_ops.zeros([], like.dtype), shape
        dims = [0 if d is None else d for d in shape.as_list()]
        return array_ops.zeros(dims, like.dtype), (shape if None in shape.as_list() else None)
    if isinstance(like, (list, tuple, dict)):
        pairs = [_placeholder_value(v, None, None) for v in nest.flatten(like)]
        return nest.pack_sequence_as(like, [p[0] for p in pairs]), None
    raise TypeError(f"Found an unsupported type '{type(like).__name__}' while creating placeholder for {like}. "
                    f"Supported types include Tensor, int, float, bool, list, tuple or dict.")


def _try_handling_undefineds(body, get_state, set_state, init_vars, nulls, invariants, symbol_names):
    """Stage one iteration (in a scratch graph) to learn the type of variables first defined in the loop."""
    first_iter_vars, failure, modified = None, None, False
    new_invariants = list(invariants)
    try:
        with _scratch_graph() as graph:
            def autocast(v):  # Python values will be tensors in the loop: trace with placeholders
                if isinstance(v, (int, float, bool, np.ndarray, np.generic)):
                    t = convert_to_tensor(v)
                    return control_flow_ops._placeholder(graph, t.dtype, t.shape, "init")
                return v
            set_state(nest.map_structure(autocast, tuple(init_vars)))
            modified = True
            body()
            first_iter_vars = tuple(get_state())
        values = []
        for k, (v, null, first) in enumerate(zip(init_vars, nulls, first_iter_vars)):
            if null:
                value, invariant = _placeholder_value(first, invariants[k], v)
                if invariant is not None and new_invariants[k] is None:
                    new_invariants[k] = invariant
                values.append(value)
            else:
                values.append(v)
        init_vars = tuple(values)
        success = True
    except (UnboundLocalError, TypeError, ValueError, KeyError) as error:
        success = False
        failure = f"Note: AutoGraph tried to define it automatically, but ran into a {type(error).__name__}: {error}"
    finally:
        if modified:
            set_state(init_vars)
    _verify_loop_init_vars(init_vars, symbol_names, first_iter_vars, extra_message=failure)
    return success, init_vars, new_invariants


def _invariants_from_opts(opts, init_vars):
    """``set_loop_options(shape_invariants=[(var, shape), ...])``, as one shape (or None) per loop variable."""
    pairs = {id(v): shape for v, shape in opts.get("shape_invariants", ())}
    shapes = [pairs.get(id(v)) for v in init_vars]
    return [None if s is None else s if isinstance(s, TensorShape) else TensorShape(s) for s in shapes]


def _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts):
    init_vars = tuple(get_state())
    invariants = _invariants_from_opts(opts, init_vars)
    nulls = [_is_none_or_undef(v) for v in init_vars]
    require_one_iteration = False
    if any(nulls):
        require_one_iteration, init_vars, invariants = _try_handling_undefineds(
            body, get_state, set_state, init_vars, nulls, invariants, symbol_names)
    else:
        _verify_loop_init_vars(init_vars, symbol_names)

    def aug_test(*loop_vars):
        if require_one_iteration:
            loop_vars = loop_vars[1:]
        set_state(loop_vars)
        return _verify_tf_condition(test(), "while loop")

    def aug_body(*loop_vars):
        if require_one_iteration:
            loop_vars = loop_vars[1:]
        set_state(loop_vars)
        body()
        new_vars = tuple(get_state())
        _verify_loop_vars(init_vars, loop_vars, new_vars, symbol_names, invariants)
        return ((True,) + new_vars) if require_one_iteration else new_vars

    loop_vars = ((False,) + init_vars) if require_one_iteration else init_vars
    shape_invariants = None
    if any(inv is not None for inv in invariants):
        structure = loop_vars[1:] if require_one_iteration else loop_vars
        shape_invariants = tuple(
            inv if inv is not None else nest.map_structure(lambda v: convert_to_tensor(v).shape, v)
            for v, inv in zip(structure, invariants))
        if require_one_iteration:
            shape_invariants = (TensorShape([]),) + shape_invariants
    # (the body graph's placeholders are then named after the Python variables: n, steps)
    control_flow_ops.name_next_loop_variables((["iterated"] if require_one_iteration else []) + list(symbol_names))
    final = control_flow_ops.while_loop(aug_test, aug_body, loop_vars, shape_invariants=shape_invariants,
                                        maximum_iterations=opts.get("maximum_iterations"))
    if require_one_iteration:
        names = ", ".join("the function return value" if isinstance(v, UndefinedReturnValue) else n
                          for n, v, null in zip(symbol_names, tuple(get_state()), nulls) if null)
        check = control_flow_ops.Assert(final[0], [f"loop must iterate at least once to initialize {names}"])
        with control_dependencies([check]):
            final = nest.map_structure(lambda v: array_ops.identity(v) if isinstance(v, Tensor) else v,
                                       tuple(final[1:]))
    set_state(tuple(final))


# ======================================================================================
# for
# ======================================================================================
def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """``for x in iter_: body(x)`` while ``extra_test()`` holds.

    * a symbolic ``tf.range`` result: a ``tf.while_loop`` over the range (the range is never materialized);
    * another symbolic tensor: a ``tf.while_loop`` over its first dimension;
    * an object with ``_autograph_for_stmt``: that method runs the loop (``tf.data.Dataset``);
    * anything else: a Python loop (unrolled while tracing).
    """
    hook = getattr(iter_, "_autograph_for_stmt", None)
    if hook is not None:
        hook(extra_test, body, get_state, set_state, symbol_names, opts)
    elif isinstance(iter_, SymbolicTensor):
        if control_flow_ops.is_range_tensor(iter_):
            _tf_range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        else:
            _known_len_tf_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    else:
        _py_for_stmt(iter_, extra_test, body)


def _py_for_stmt(iter_, extra_test, body):
    if extra_test is None:
        for target in iter_:
            body(target)
        return

    def guarded_extra_test():
        result = extra_test()
        try:
            return bool(result)
        except OperatorNotAllowedInGraphError as error:
            raise NotImplementedError(
                "break and return statements which depend on a TF condition are not supported in Python for "
                "loops. Did you intend to make it a TF loop?\n" + _DOCS) from error

    if guarded_extra_test():
        for target in iter_:
            body(target)
            if not guarded_extra_test():
                break


def _loop_test(main_test, extra_test):
    if extra_test is None:
        return main_test
    return control_flow_ops.cond(main_test, extra_test, lambda: False)


def _known_len_tf_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """Iterate a tensor's first dimension: an index loop variable, ``iter_[i]`` as the element."""
    if iter_.shape.rank == 0:
        raise ValueError(f"len requires a non-scalar tensor, got one of shape {iter_.shape}")
    n = len_(iter_)
    index = 0

    def aug_get_state():
        return (index,) + tuple(get_state())

    def aug_set_state(values):
        nonlocal index
        index, *rest = values
        set_state(rest)

    def aug_body():
        nonlocal index
        body(array_ops.gather(iter_, index))
        index += 1

    def aug_test():
        return _loop_test(index < n, extra_test)

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state, ("<internal iterate>",) + tuple(symbol_names),
                   opts)


def _tf_range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """Iterate ``tf.range(start, limit, delta)`` without materializing it: the iterate is a loop variable."""
    start, limit, delta = iter_.op.inputs
    iterate = start

    def aug_get_state():
        values = tuple(iterate if (name == opts.get("iterate_names") and isinstance(v, Undefined)) else v
                       for name, v in zip(symbol_names, get_state()))
        return (iterate,) + values

    def aug_set_state(values):
        nonlocal iterate
        iterate, *rest = values
        set_state(rest)

    def aug_body():
        nonlocal iterate
        body(iterate)
        iterate += delta

    def aug_test():
        const_delta = constant_value(delta)
        if const_delta is not None:
            main_test = iterate < limit if const_delta >= 0 else iterate > limit
        else:
            main_test = math_ops.logical_or(math_ops.logical_and(delta >= 0, iterate < limit),
                                            math_ops.logical_and(delta < 0, iterate > limit))
        return _loop_test(main_test, extra_test)

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state, ("<internal iterate>",) + tuple(symbol_names),
                   opts)


# ======================================================================================
# calls and builtins
# ======================================================================================
def range_(start_or_stop, stop=None, step=None):
    """``range``: ``tf.range`` if an argument is a tensor, else Python's range."""
    args = [a for a in (start_or_stop, stop, step) if a is not None]
    if any(isinstance(a, Tensor) or hasattr(a, "_is_variable") for a in args):
        if stop is None:
            return array_ops.range(start_or_stop)
        return array_ops.range(start_or_stop, stop, 1 if step is None else step)
    return builtins.range(*args)


def len_(s):
    """``len``: the static first dimension of a symbolic tensor if known, else ``tf.shape(s)[0]``."""
    if isinstance(s, SymbolicTensor):
        if s.shape.rank == 0:
            raise ValueError(f"len requires a non-scalar tensor, got one of shape {s.shape}")
        if s.shape.rank is not None and s.shape[0] is not None:
            return s.shape[0]
        return array_ops.shape(s)[0]
    return len(s)


# What ``converted_call`` calls instead of ``f``: ``api._convert_for_call``, installed by ``api.py`` when it is
# imported. (``api.py`` imports this module, to give converted code as its ``ag__``; this one does not import it.)
_convert_for_call = None


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Call ``f(*args, **kwargs)``, converting ``f`` first if it is user code.

    ``caller_fn_scope`` is the caller's :class:`FunctionScope`; its options (or
    ``options``) say whether called functions are converted (``recursive``).
    """
    kwargs = kwargs or {}
    if f is builtins.range:
        return range_(*args, **kwargs)
    if f is builtins.len:
        return len_(*args, **kwargs)
    if options is None and caller_fn_scope is not None:
        options = caller_fn_scope.callopts
    if options is not None and not options.recursive:
        return f(*args, **kwargs)
    return _convert_for_call(f)(*args, **kwargs)
