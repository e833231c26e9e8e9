"""Errors raised while AutoGraph-converted code is traced: "in user code:", as TF 2.21 reports them.

An error raised while ``tf.function`` traces a converted function points into the engine
(where the op refused its inputs), which is not where the mistake is. TF re-raises it, of the
same class, with the frames of the *user's* code that led there first::

    TypeError: in user code:

        File "train.py", line 8, in f  *
            return x + tf.constant(1.0)

        TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'.

A frame marked ``*`` is a function AutoGraph converted (``**``: one it called but left as it is), shown at the user's statement it came from
(converted code runs from generated text; ``api.py`` keeps a source map from its lines to the user's). Frames of the
engine itself and of installed packages are left out. Errors of the classes TF rebuilds from a
message are rebuilt; the ``OpError`` s keep their ``node_def`` and ``op``; other errors pass unchanged.
A rewritten error keeps its cause: an enclosing traced function adds its own frame to the list
(TF's chain), rather than wrapping the text again.
"""
import linecache
import os
import sysconfig

from ..framework.errors import OpError
from .api import user_location
from .operators import converted_call

_CONVERTED_CALL = converted_call.__code__   # (a frame of it: the user's function it called ran unconverted)

__all__ = ["in_user_code"]

# The classes TF rebuilds from a message (``ag_error_metadata.KNOWN_STRING_CONSTRUCTOR_ERRORS``).
_REBUILT = (AssertionError, AttributeError, NameError, NotImplementedError, RuntimeError, StopIteration,
            TypeError, UnboundLocalError, ValueError)
_ENGINE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARIES = tuple({os.path.abspath(p) + os.sep for p in (sysconfig.get_paths()["stdlib"],
                                                          sysconfig.get_paths()["purelib"],
                                                          sysconfig.get_paths()["platlib"])})


def _is_user_file(filename):
    path = os.path.abspath(filename)
    return not filename.startswith("<autograph") and not path.startswith(_ENGINE) and \
        not path.startswith(_LIBRARIES)


def _user_frames(traceback):
    """``(filename, line, function name, converted?, code)`` of the user's frames that led to the error.

    TF's walk (``autograph/pyct/error_utils.py``): from the raise outwards, the user's frames up to
    and including the innermost frame of converted code; then, for each converted function that
    called it in turn, the frame of its call. Listed outermost first. A converted frame is named
    after the user's function it came from (a loop body AutoGraph made inside ``g`` is ``g``;
    a lambda, as TF names it, ``None``).
    """
    chain = []
    while traceback is not None:
        chain.append((traceback.tb_frame.f_code, traceback.tb_lineno))
        traceback = traceback.tb_next
    frames, inner_function = [], None
    for code, lineno in reversed(chain):
        converted = code.co_qualname.startswith("__ag_factory.")
        if inner_function is not None:
            # an enclosing converted function's call (a frame of the same function, the one whose loop
            # body or branch raised, is not listed again)
            if converted and _function_of(code) != inner_function:
                frames.append(_frame(code, lineno, True))
                inner_function = _function_of(code)
            continue
        if converted:
            frames.append(_frame(code, lineno, True))
            inner_function = _function_of(code)
        elif _is_user_file(code.co_filename):
            frames.append(_frame(code, lineno, False))
        elif code is _CONVERTED_CALL and frames and frames[-1][3] is False:
            frames[-1] = frames[-1][:3] + (None,) + frames[-1][4:]   # called as it is, not converted: "**"
    return frames[::-1]


def _frame(code, lineno, converted):
    filename = code.co_filename
    if converted:   # (converted code runs from generated text: its source map gives the user's line)
        filename, lineno = user_location(filename, lineno) or (filename, lineno)
    line = linecache.getline(filename, lineno).strip()   # (TF shows nothing for a line it cannot read)
    name = _original_name(code) if converted else code.co_name
    if converted and name == "None" and "lambda" in line:
        line = line[line.index("lambda"):]       # (TF shows a lambda's own text)
        if line.count(")") > line.count("("):
            line = line[:line.rindex(")")].rstrip()
    return filename, lineno, name, converted, line


def _function_of(code):
    """The converted function a code object belongs to: ``__ag_factory.<locals>.tf__g`` for ``tf__g``
    and for the loop bodies and branches AutoGraph made inside it."""
    parts = code.co_qualname.split(".")
    for i, part in enumerate(parts):
        if part.startswith("tf__") or part == "<lambda>":   # (a converted lambda: its own scope, inside)
            return ".".join(parts[:i + 1])
    return code.co_qualname


def _original_name(code):
    """``tf__g`` (and ``tf__g.<locals>.loop_body``) -> ``g``: the user's function the code was made from."""
    for part in reversed(code.co_qualname.split(".")):
        if part == "tf__lam" or part == "<lambda>" and "tf__" not in code.co_qualname:
            return "None"
        if part.startswith("tf__"):
            return part[len("tf__"):]
    return code.co_name


def message(error, frames):
    """TF's text: the user's frames, then the original error's class and message, indented."""
    # (``_MultilineKeyError`` prints as its text; the key of the original KeyError is ``repr``'d)
    lines = ["in user code:", ""]
    for filename, lineno, name, converted, code in frames:
        marker = {True: "  *", None: "  **"}.get(converted, "")
        lines.append(f'    File "{filename}", line {lineno}, in {name}' + marker)
        lines.append(f"        {code}")
    lines.append("")
    lines.extend("    " + line for line in f"{type(error).__name__}: {error}".split("\n"))
    lines.append("")
    return "\n".join(lines)


class _MultilineKeyError(KeyError):
    """A ``KeyError`` printed as its message (``str(KeyError(text))`` would quote it), named ``KeyError``,
    as TF's ``MultilineMessageKeyError``."""

    def __init__(self, message, *key):
        super().__init__(*key)
        self._message = message

    def __str__(self):
        return self._message


_MultilineKeyError.__name__ = "KeyError"


def in_user_code(error):
    """``error`` as TF re-raises it from a traced converted function, or ``error`` itself."""
    if getattr(error, "ag_pass_through", False):   # (an error TF raises when the graph runs, not while tracing)
        return error
    cause = getattr(error, "_user_code_cause", None)   # (rewritten by a function it called: chain on)
    if cause is None and str(error).startswith("in user code:"):
        return error   # (its text was framed already, and carried into a new error of its class)
    frames = _user_frames(error.__traceback__)
    if not frames:
        return error
    text = message(cause or error, frames)
    try:
        if isinstance(error, OpError):
            new = type(error)(error.node_def, error.op, text)
        elif type(error) in _REBUILT:
            new = type(error)(text)
        elif type(error) is KeyError:
            new = _MultilineKeyError(text, *error.args)
        else:
            return error
    except Exception:  # noqa: BLE001  (a class that cannot be rebuilt this way: the original error)
        return error
    new._user_code_cause = cause or error
    return new.with_traceback(error.__traceback__)
