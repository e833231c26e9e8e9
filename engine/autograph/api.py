"""From a Python function to its converted twin: source, AST, new code, same closure.

``to_graph(f)``:

1. reads ``f``'s source (``inspect``), parses it and drops its decorators;
2. converts the ``FunctionDef`` (``converter.py``);
3. compiles it inside a *factory* whose parameters are ``ag__`` and ``f``'s
   free variables, so the new code object has the same free variables::

       def __ag_factory(ag__, scale):        # scale: a variable f closes over
           def tf__f(x):
               ...converted body...
           return tf__f

4. builds the function from that code object with ``f``'s globals, defaults
   and *its own closure cells* (plus a cell holding the ``ag__`` module): the
   converted function sees the same globals and closure variables as ``f``,
   including later changes to them.

The conversion is cached per code object; a function that cannot be converted
(no source, a generator, a builtin) is returned unchanged, as TF does after
logging a warning. ``converted_call`` uses the same machinery to convert, on
the fly, the user functions a converted function calls (``recursive=True``).

Your own converter: the ``autograph`` seam
------------------------------------------
The source transformation is a seam (``engine.seams``) whose protocol is one
method::

    convert(function) -> function

``function`` is a plain Python function of user code (a ``def`` or a lambda):
the engine has already unwrapped methods, ``functools.partial`` s, callable
objects and ``tf.function`` s (and re-binds what ``convert`` returns), and it
never offers library code, generators, ``do_not_convert`` functions or functions
``convert`` already produced. The result is called, while ``tf.function``
traces, instead of ``function``: the same signature, with its control flow on
tensors rewritten into calls of the public operators of ``operators.py``
(``ag__.if_stmt``, ``ag__.while_stmt``, ``ag__.for_stmt``, ``ag__.Undefined``...),
which stage ``tf.cond`` / ``tf.while_loop`` for symbolic conditions and keep
Python's meaning otherwise. Returning ``function`` itself means "not converted".
Raising :class:`ConversionError` means "cannot convert": the function then runs
as it is, after a warning, as for the engine's own converter.

Two helpers do the plumbing, so a converter is an ``ast.NodeTransformer`` and
three lines::

    class MyAutoGraph:
        def convert(self, function):
            node = parse_function(function)          # its ast.FunctionDef (a lambda: `def`-shaped)
            node = MyIfWhileTransformer().visit(node)
            return compile_function(function, node)  # same globals and closure; `ag__` is operators.py

    with engine.seams.using(autograph=MyAutoGraph):  # a class (built per conversion) or an object
        tf.function(f)(x)          # traced through MyAutoGraph; so are tf.autograph.to_graph / to_code

Inside the block every conversion goes through it: ``tf.function``'s trace,
``to_graph``, ``to_code`` (the source ``compile_function`` kept), the replica
functions of ``strategy.run`` in a trace, and ``converted_call``. ``recursive``
is the engine converter's option: another converter decides for itself.
Conversions are not cached in the block, and the engine's own cache is left
alone. The seam's reference is :class:`AutoGraph`, the engine's converter.
"""
import ast
import copy
import functools
import inspect
import itertools
import linecache
import logging
import sysconfig
import textwrap
import types
import weakref

from .. import seams
from . import converter, operators

__all__ = ["to_graph", "to_code", "do_not_convert", "ConversionError", "AutoGraph", "AUTOGRAPH_PROTOCOL",
           "parse_function", "compile_function"]

logger = logging.getLogger("tensorflow")


class ConversionError(Exception):
    """AutoGraph could not convert an entity (``to_code`` of something without Python source)."""


class _NotConvertible(Exception):
    pass


_code_cache = {}                          # (code object, recursive) -> (new code object, converted source)
_function_cache = weakref.WeakKeyDictionary()  # function -> {recursive: converted function, or None = use as-is}
_file_trees = {}                          # filename -> (source lines, parsed module), for lambdas
_counter = itertools.count()
_SKIPPED_ROOTS = frozenset([
    "engine", "numpy", "scipy", "builtins", "functools", "itertools", "collections", "typing", "abc", "math",
    "operator", "inspect", "copy", "re", "logging", "pytest", "_pytest", "unittest", "threading", "contextlib",
    "weakref", "types", "random", "warnings", "os", "sys", "enum", "dataclasses", "pluggy", "hypothesis"])
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_LIBRARY_PATHS = tuple({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                        sysconfig.get_paths()["platlib"]})


# --------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_graph``: the converted version of a Python function (or method).

    ``recursive=True`` also converts the user functions it calls, when they are
    called. Entities that cannot be converted are returned as they are.
    """
    if hasattr(entity, "python_function") and hasattr(entity, "get_concrete_function"):
        entity = entity.python_function    # a tf.function: its Python function (TF refuses; the engine helps)
    try:
        return _convert_entity(entity, recursive)
    except _NotConvertible as error:
        logger.warning(f"AutoGraph could not transform {entity!r} and will run it as-is.\nCause: {error}")
        return entity


def to_code(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_code``: the source code of the converted function, as a string."""
    function = _unwrap(entity)
    if not isinstance(function, types.FunctionType):
        raise ConversionError(f"converting {entity!r}: only Python functions and methods can be converted")
    try:
        if _AUTOGRAPH_SEAM.replaced:
            return _source_of(_convert_entity(function, recursive))
        _, source = _converted_code(function, recursive)
    except _NotConvertible as error:
        raise ConversionError(f"converting {entity!r}: {error}") from None
    return str(source)


def do_not_convert(func=None):
    """``tf.autograph.experimental.do_not_convert``: run ``func`` as plain Python, never converted."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    wrapper.__ag_do_not_convert__ = True
    return wrapper


# --------------------------------------------------------------------------------------
# The `autograph` seam: the protocol, the engine's converter, the helpers a converter uses
# --------------------------------------------------------------------------------------
AUTOGRAPH_PROTOCOL = ("convert",)


class AutoGraph:
    """The engine's converter (``converter.py``'s passes), the ``autograph`` seam's reference.

    ``AutoGraph().convert(f)`` is ``f`` converted (``f`` itself when there is
    nothing to convert); the engine calls it through :func:`to_graph`, with a cache.
    """

    def __init__(self, recursive=True):
        self.recursive = recursive

    def convert(self, function):
        try:
            code, source = _converted_code(function, self.recursive)
        except _NotConvertible as error:
            raise ConversionError(f"converting {function!r}: {error}") from None
        return function if code is None else _rebuild(function, code, str(source))


_AUTOGRAPH_SEAM = seams.declare(
    "autograph", AutoGraph, AUTOGRAPH_PROTOCOL,
    doc="The AutoGraph converter behind tf.function: convert(function) -> the function to trace, whose control "
        "flow calls engine.autograph.operators (if_stmt, while_stmt, for_stmt). Inside "
        "`engine.seams.using(autograph=MyAutoGraph)` every conversion (tf.function, tf.autograph.to_graph/to_code) "
        "goes through MyAutoGraph. Helpers: engine.autograph.api.parse_function, compile_function.")


def parse_function(function):
    """The ``ast.FunctionDef`` of ``function``'s source, decorators dropped, ready to transform.

    A lambda comes back as an equivalent ``def`` (``def lambda_(x): return ...``).
    Private names of a method (``self.__x``) are already mangled, as the class
    would, since the code is compiled outside it. No source: ``ConversionError``.
    """
    try:
        if function.__name__ == "<lambda>":
            node = ast.parse("def lambda_():\n    pass").body[0]
            lam = _lambda_ast(function)
            node.args, node.body = lam.args, [ast.Return(value=lam.body)]
            return ast.fix_missing_locations(ast.copy_location(node, lam))
        node = _function_ast(function)
    except _NotConvertible as error:
        raise ConversionError(f"converting {function!r}: {error}") from None
    node.decorator_list = []
    class_name = _class_name(function)
    if class_name:
        converter.mangle_private_names(node, class_name)
    return node


def compile_function(function, node):
    """Compile ``node`` (an ``ast.FunctionDef``, e.g. ``parse_function(function)`` transformed) into the function
    that replaces ``function``.

    It runs with ``function``'s globals, defaults and closure cells (later changes
    to them included), and sees the name ``ag__``: the module ``operators.py``. It
    carries ``function``'s name and docstring, and its source for ``to_code``.
    """
    node = ast.fix_missing_locations(node)
    body = [node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))]
    return _rebuild(function, _compile_in_factory(function, body, node.name), ast.unparse(node))


# --------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------
def _unwrap(entity):
    if hasattr(entity, "python_function") and hasattr(entity, "get_concrete_function"):
        entity = entity.python_function        # a tf.function: convert the Python function inside
    if inspect.ismethod(entity):
        entity = entity.__func__
    return entity


def _convert_entity(entity, recursive):
    """The converted entity; entities with nothing to convert (library code, builtins, classes, tf.functions)
    come back as they are."""
    if inspect.ismethod(entity):
        function = _convert_entity(entity.__func__, recursive)
        return entity if function is entity.__func__ else types.MethodType(function, entity.__self__)
    if isinstance(entity, functools.partial):
        function = _convert_entity(entity.func, recursive)
        return entity if function is entity.func else functools.partial(function, *entity.args, **entity.keywords)
    if not isinstance(entity, types.FunctionType):
        call = getattr(type(entity), "__call__", None)   # a callable object: convert its class's __call__
        if isinstance(call, types.FunctionType) and _is_user_code(call):
            function = _convert_entity(call, recursive)
            return entity if function is call else types.MethodType(function, entity)
        return entity
    if getattr(entity, "__ag_do_not_convert__", False) or getattr(entity, "__ag_converted__", False) or \
            not _is_user_code(entity) or entity.__code__.co_flags & _GENERATOR_FLAGS:
        return entity
    if _AUTOGRAPH_SEAM.replaced:           # inside `engine.seams.using(autograph=...)`: not cached
        return _convert_with(_AUTOGRAPH_SEAM.current, entity)
    per_function = _function_cache.setdefault(entity, {})
    if recursive in per_function:
        converted = per_function[recursive]
        return entity if converted is None else converted
    try:
        code, source = _converted_code(entity, recursive)
    except _NotConvertible:
        per_function[recursive] = None
        raise
    if code is None:                       # nothing to convert
        per_function[recursive] = None
        return entity
    converted = _rebuild(entity, code, source)
    per_function[recursive] = converted
    return converted


def _convert_with(chosen, function):
    """``function`` converted by the ``autograph`` seam's implementation ``chosen`` (a class or an object)."""
    implementation = chosen() if isinstance(chosen, type) else chosen
    try:
        converted = implementation.convert(function)
    except ConversionError as error:
        raise _NotConvertible(str(error)) from None
    if not callable(converted):
        raise TypeError(f"{type(implementation).__name__}.convert must return a function, not "
                        f"{type(converted).__name__}")
    return converted


class _Source:
    """The converted code as text, written when ``to_code`` first asks for it (tracing never needs it)."""

    __slots__ = ("node", "text")

    def __init__(self, node):
        self.node, self.text = node, None

    def __str__(self):
        if self.text is None:
            self.text = ast.unparse(self.node) + "\n"   # (TF's to_code ends with a newline too)
        return self.text


def _source_of(function):
    """What ``to_code`` shows for a function a converter returned: the source ``compile_function`` kept."""
    source = getattr(function, "__ag_source__", None)
    if source is not None:
        return str(source)
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError) as error:
        raise _NotConvertible(f"the converter returned a function without source code ({error}); build it "
                              f"with engine.autograph.api.compile_function") from None


def _converted_code(function, recursive):
    """``(code object, source)`` of the converted function (code is None when there is nothing to convert)."""
    key = (function.__code__, recursive)
    cached = _code_cache.get(key)
    if cached is not None:
        return cached
    if function.__code__.co_flags & _GENERATOR_FLAGS:
        raise _NotConvertible("generators and coroutines are not converted")
    if function.__name__ == "<lambda>":
        node = converter.convert_lambda(_lambda_ast(function), recursive)
        assign = ast.Assign(targets=[ast.Name(id="tf__lam", ctx=ast.Store())], value=node)
        body = [assign, ast.Return(value=ast.Name(id="tf__lam", ctx=ast.Load()))]
        name = "<lambda>"
        source = _Source(ast.fix_missing_locations(assign))
    else:
        tree, line_offset = _function_ast(function, with_offset=True)
        node = converter.convert_function(tree, recursive, _class_name(function))
        body = [node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))]
        name = node.name
        source = _Source(node)
        ast.increment_lineno(node, line_offset)   # (the user's file's lines, for the source map)
    result = (_compile_in_factory(function, body, name), source)
    _code_cache[key] = result
    return result


_CONVERTED_FILES = {}   # converted code's file name -> (the user's file, the generated text, its tree)
_SOURCE_MAPS = {}       # converted code's file name -> {generated line: the user's line}, made when first asked


def _source_map(text, module):
    """Which line of the user's file each line of the generated ``text`` came from.

    ``text`` is ``module`` unparsed, and ``module``'s nodes carry the user's lines: parsing the text
    back gives the same tree, whose nodes carry the text's lines; walking both side by side pairs them.
    """
    mapping = {}
    definition = module.body[0].body[0]     # (the converted function, inside the factory)
    wrappers = {getattr(definition, "lineno", None), module.body[0].lineno}
    for generated, original in zip(ast.walk(ast.parse(text)), ast.walk(module)):
        if type(generated) is not type(original):
            return {}   # (not the same tree after all: no map, rather than a wrong one)
        line, origin = getattr(generated, "lineno", None), getattr(original, "lineno", None)
        if line is not None and origin is not None:
            # The first node of a generated line in the walk is its statement: its line is where the
            # user's statement starts. Code AutoGraph adds around the user's carries the def's line:
            # any user line on the same generated line is a better answer.
            known = mapping.get(line)
            if known is None or known in wrappers and origin not in wrappers:
                mapping[line] = origin
    return mapping


def user_location(filename, lineno):
    """``(the user's file, line)`` that line ``lineno`` of converted code came from, or None."""
    converted = _CONVERTED_FILES.get(filename)
    if converted is None:
        return None
    user_file, text, tree = converted
    mapping = _SOURCE_MAPS.get(filename)
    if mapping is None:   # (on the first error through this code: tracing never needs it)
        mapping = _SOURCE_MAPS[filename] = _source_map(text, tree)
    return (user_file, mapping[lineno]) if lineno in mapping else None


def _compile_in_factory(function, body, name):
    """The code object ``name`` defined by ``body``, compiled inside a factory over ``ag__`` and ``function``'s
    free variables (so it closes over the same names; ``_rebuild`` gives it the same cells)."""
    params = ["ag__"] + list(function.__code__.co_freevars)
    factory = ast.parse(f"def __ag_factory({', '.join(params)}):\n    pass").body[0]
    factory.body = body
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    text = ast.unparse(module)
    filename = f"<autograph {function.__qualname__} #{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # readable tracebacks
    _CONVERTED_FILES[filename] = (function.__code__.co_filename, text, module)
    namespace = {}
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102  (code we generated from the user's own)
    return next(c for c in namespace["__ag_factory"].__code__.co_consts
                if isinstance(c, types.CodeType) and c.co_name == name)


def _rebuild(function, code, source):
    """A function running ``code`` with ``function``'s globals, defaults and closure cells."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    cells["ag__"] = types.CellType(operators)
    converted = types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__,
                                   tuple(cells[name] for name in code.co_freevars))
    converted.__kwdefaults__ = dict(function.__kwdefaults__) if function.__kwdefaults__ else None
    converted.__dict__.update(function.__dict__)
    converted.__qualname__ = function.__qualname__
    converted.__module__ = function.__module__
    converted.__doc__ = function.__doc__
    converted.__ag_converted__ = True
    converted.__ag_source__ = source
    return converted


def _function_ast(function, with_offset=False):
    """The ``ast.FunctionDef`` of ``function``, parsed from its source; ``with_offset``: also the number
    to add to its line numbers to make them the lines of the function's file."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError) as error:
        raise _NotConvertible(
            f"InaccessibleSourceCodeError: Unable to locate the source code of {function!r}. Note that functions "
            f"defined in certain environments, like the interactive Python shell, do not expose their source code. "
            f"If that is the case, you should define them in a .py source file. If you are certain the code is "
            f"graph-compatible, wrap the call using @tf.autograph.experimental.do_not_convert. Original error: "
            f"{error}") from None
    offset = function.__code__.co_firstlineno - 1
    try:
        tree = ast.parse(source)
        node = tree.body[0]
    except SyntaxError:                  # e.g. a multi-line string defeated dedent: parse inside a block
        try:
            node = ast.parse("if 1:\n" + source).body[0].body[0]
            offset -= 1
        except SyntaxError as error:
            raise _NotConvertible(f"could not parse the source code: {error}") from None
    if not isinstance(node, ast.FunctionDef) or node.name != function.__name__:
        raise _NotConvertible("could not find the function's definition in its source code")
    return (node, offset) if with_offset else node


def _lambda_ast(function):
    """The ``ast.Lambda`` of a lambda: parse its whole file and match line and parameter names."""
    code = function.__code__
    lines = linecache.getlines(code.co_filename)
    if not lines:
        raise _NotConvertible("could not get source code")
    cached = _file_trees.get(code.co_filename)
    if cached is None or cached[0] != lines:
        try:
            cached = (lines, ast.parse("".join(lines)))
        except SyntaxError as error:
            raise _NotConvertible(f"could not parse the source file: {error}") from None
        _file_trees[code.co_filename] = cached
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    matches = [n for n in ast.walk(cached[1]) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
               and [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]
    if len(matches) > 1:
        matches = _by_columns(code, matches)
    if len(matches) != 1:
        raise _NotConvertible("could not identify the lambda in its source line (several lambdas with the same "
                              "parameters?); define it on its own line")
    return copy.deepcopy(matches[0])


def _by_columns(code, lambdas):
    """Tell apart lambdas on one line: the one whose body holds all the code's instruction positions."""
    positions = [(line, col) for line, _, col, end in code.co_positions()
                 if line is not None and col is not None and end is not None and end > col]

    def holds(node):
        body = node.body
        return positions and all((body.lineno, body.col_offset) <= p < (body.end_lineno, body.end_col_offset)
                                 for p in positions)
    inside = [n for n in lambdas if holds(n)]
    inside.sort(key=lambda n: (n.body.end_lineno - n.body.lineno, n.body.end_col_offset - n.body.col_offset))
    return inside[:1] if inside else []


def _class_name(function):
    """The class a method was defined in (for private-name mangling), from ``__qualname__``."""
    parts = function.__qualname__.split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else None


# --------------------------------------------------------------------------------------
# converted_call
# --------------------------------------------------------------------------------------
def _is_user_code(function):
    root = (getattr(function, "__module__", None) or "").split(".")[0]
    if root in _SKIPPED_ROOTS:
        return False
    filename = getattr(getattr(function, "__code__", None), "co_filename", "")
    return not filename.startswith(_LIBRARY_PATHS)


def _convert_for_call(f):
    """What ``ag__.converted_call`` calls instead of ``f`` (``f`` itself when there is nothing to convert).

    A ``tf.function`` is called as it is: it traces (and caches) its own graph,
    which the caller's trace then inlines.
    """
    try:
        return _convert_entity(f, True)
    except _NotConvertible as error:
        logger.warning(f"AutoGraph could not transform {f!r} and will run it as-is.\nCause: {error}")
        return f


operators._convert_for_call = _convert_for_call   # `ag__.converted_call` converts the functions it calls with it
