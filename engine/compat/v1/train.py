"""``tf.compat.v1.train``: TF1 optimizers that add update ops to the graph."""
from ...eager.tape import GradientTape
from ...framework.context import ctx
from ...framework.graph_gradients import gradients
from ...ops import math_ops
from .graph_building import group, trainable_variables

__all__ = ["Optimizer", "GradientDescentOptimizer"]


class Optimizer:
    """Base class: ``minimize`` = ``compute_gradients`` + ``apply_gradients``."""

    def __init__(self, use_locking=False, name="Optimizer"):
        self._name = name

    def compute_gradients(self, loss, var_list=None):
        if callable(loss) and ctx.graph is None:
            with GradientTape() as tape:
                value = loss()
            var_list = var_list if var_list is not None else tape.watched_variables()
            return list(zip(tape.gradient(value, list(var_list)), var_list))
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        return list(zip(gradients(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}.")
        updates = [self._apply_dense(g, v) for g, v in pairs]
        if global_step is not None:
            updates.append(global_step.assign_add(1, read_value=False))
        return group(*updates, name=name or self._name)

    def minimize(self, loss, global_step=None, var_list=None, name=None):
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step, name)

    def _apply_dense(self, grad, var):
        raise NotImplementedError


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad`` for each trainable variable.

    Deliberate difference: TF1 emits one fused ``ResourceApplyGradientDescent`` node per variable; the
    engine emits ``Mul`` (``learning_rate * grad``) and ``AssignSubVariableOp``, the same update in two ops.
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        return var.assign_sub(math_ops.multiply(math_ops.cast(self._learning_rate, grad.dtype), grad),
                              read_value=False)
