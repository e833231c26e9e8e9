"""``SGD``: gradient descent, optionally with momentum (and Nesterov momentum).

Keras 3's formulas, with ``m`` the momentum slot (zeros at first)::

    plain:     v -= lr * g
    momentum:  m = momentum * m - lr * g;   v += m
    nesterov:  m = momentum * m - lr * g;   v += momentum * m - lr * g
"""
from ...ops import math_ops
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (``learning_rate=0.01``, ``momentum=0.0``, ``nesterov=False``)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, var_list):
        super().build(var_list)
        self.momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum != 0 else []

    def update_step(self, gradient, variable, learning_rate):
        lr = math_ops.cast(learning_rate, variable.dtype)
        gradient = math_ops.cast(gradient, variable.dtype)
        if self.momentum == 0:
            variable.assign_sub(gradient * lr)
            return
        m = self.momentums[self._get_variable_index(variable)]
        momentum = math_ops.cast(self.momentum, variable.dtype)
        m.assign(m * momentum - gradient * lr)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * lr)
        else:
            variable.assign_add(m)

    def get_config(self):
        return dict(super().get_config(), momentum=self.momentum, nesterov=self.nesterov)
