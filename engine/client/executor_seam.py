"""The ``executor`` seam: the mechanism that runs part of a graph for ``Session.run``.

``sess.run(fetches, feed_dict)`` does the bookkeeping itself (it flattens the
fetches, checks and converts every fed value, packs the results back into the
structure of ``fetches``) and hands the actual running to an *executor*. The
executor is the part of TensorFlow that knows how to run a graph: TF's
``DirectSession`` prunes the graph to what a request needs, builds an
``Executor`` for it once (``NewLocalExecutor``), keeps it for that
(fetches, feeds, targets) signature, and calls ``executor.Run`` on every
``sess.run``. The engine does the same, through this protocol::

    class MyExecutor:
        def __init__(self, fetches, targets, feeds):
            ...  # once per request: decide which ops run, and in which order
        def run(self, feed_values, runtime):
            ...  # every sess.run: the fetched values, in the order of ``fetches``

``fetches``
    the graph tensors (``SymbolicTensor``) to compute, in order. A fetch may be
    one of the fed tensors: its value is then the fed value.
``targets``
    the graph ``Operation`` s to run for their effects (``sess.run(train_op)``,
    an initializer); they produce no fetched value.
``feeds``
    the graph tensors that are fed. Any tensor can be fed, not only a
    placeholder: a fed tensor's value replaces its producer, so the ops that
    only feed it need not run. A ``Placeholder`` that is needed and not fed
    fails with TF's ``InvalidArgumentError`` ("You must feed a value for
    placeholder tensor ..."): its kernel raises it (see :func:`run_kernel`).
``feed_values``
    one value per tensor of ``feeds``, in the same order, already checked and
    converted to the tensor's dtype (NumPy arrays or NumPy scalars).
``runtime``
    the session's state: its resource table. Graph-mode variables live there
    (``runtime.resource(name)``), so two sessions on one graph have their own
    variable values. Ops whose ``op.op_def.needs_runtime`` is true (variable
    handles, random ops, control flow) get it as the ``_runtime=`` keyword;
    :func:`run_kernel` passes it for you.

An op is *needed* if a fetch or a target depends on it through its data inputs
(``op.inputs``: tensors, each produced by ``tensor.op``) or its control inputs
(``op.control_inputs``: operations that must run first), and what it feeds is
not fed. Run the needed ops in an order where every op comes after the ops it
depends on (a topological order), each one by :func:`run_kernel`.

Inside ``with engine.seams.using(executor=MyExecutor):`` every ``Session.run``
(``tf.compat.v1.Session``, ``InteractiveSession``, ``Tensor.eval``,
``Operation.run``, ``make_callable``), including sessions created before the
block, builds and runs ``MyExecutor`` s; leaving the block (also by an
exception) restores the reference. A session keeps the executors it built per
request and per executor class, so ``__init__`` runs once per request and
``run`` on every call.

The reference, :class:`GraphExecutor`, is ``compile_plan``'s plan
(``engine/framework/executor.py``): it also copies the pruned graph into the
optimizer's IR, optimizes it and generates Python source for it. ``tf.function``
calls, ``tf.data`` functions and control-flow bodies keep running on the
reference plans: this seam is ``Session.run``'s.
"""
from .. import seams
from ..framework.executor import Plan, _kernel_for, compile_plan

__all__ = ["EXECUTOR_PROTOCOL", "GraphExecutor", "run_kernel"]

EXECUTOR_PROTOCOL = ("run",)   # and the constructor: ``Executor(fetches, targets, feeds)``


def run_kernel(op, inputs, runtime=None):
    """Run the kernel of graph operation ``op`` on ``inputs``; return the list of its output values.

    ``inputs`` holds one value per tensor of ``op.inputs``, in order: NumPy arrays
    (or scalars), or a resource handle for a resource input (what a
    ``VarHandleOp`` returned). The kernel is the op's registry kernel for the
    device ``op`` was placed on (``op.op_def.kernel("numpy")`` on the CPU),
    called with the op's attributes (``op.attrs``) as keyword arguments, and with
    ``_runtime=runtime`` when ``op.op_def.needs_runtime``. The result has one
    value per tensor of ``op.outputs`` (an empty list for ops without outputs,
    such as ``NoOp`` and the assignments).

    A ``Placeholder`` 's kernel only raises: it runs when a placeholder is needed
    and was not fed, and says so in TF's words.
    """
    kernel = _kernel_for(op)
    attrs = op.attrs if op.type != "Placeholder" else dict(op.attrs, name=op.name)
    if op.op_def.needs_runtime:
        result = kernel(*inputs, **attrs, _runtime=runtime)
    else:
        result = kernel(*inputs, **attrs)
    n = len(op.outputs)
    if n == 0:
        return []
    return [result] if n == 1 else list(result)


class GraphExecutor(Plan):
    """The reference executor: ``compile_plan``'s generated-Python :class:`Plan` for the request.

    Building one prunes, orders, optimizes and generates code (``compile_plan``);
    ``run`` calls the generated function. It *is* a ``Plan`` (``sess.last_plan.source``,
    ``.report``, ``.graph_ops`` show what it runs).
    """

    def __init__(self, fetches, targets, feeds):
        # (compile_plan builds a Plan; the executor adopts its state, as Plan._recompile does)
        self.__dict__.update(compile_plan(list(fetches), list(targets), list(feeds)).__dict__)

    def run(self, feed_values, runtime=None):
        """The fetched values for ``feed_values`` (in the order of ``feeds``), as a tuple."""
        return self(feed_values, runtime)


EXECUTOR_SEAM = seams.declare(
    "executor", GraphExecutor, EXECUTOR_PROTOCOL,
    doc="The executor behind Session.run: which ops a request needs, in which order, and running their "
        "kernels. An executor class is built as Executor(fetches, targets, feeds) once per request and "
        "asked run(feed_values, runtime) -> fetched values on every sess.run. Inside "
        "`engine.seams.using(executor=MyExecutor)` every Session.run uses MyExecutor. Helper: "
        "engine.client.executor_seam.run_kernel(op, inputs, runtime). See engine/client/executor_seam.py.")
