"""``RMSprop``: divide the step by a running root-mean-square of recent gradients.

Keras 3's formulas, with slots ``velocity`` (the mean square), ``momentum`` and,
if ``centered``, ``average_gradient``::

    velocity = rho * velocity + (1 - rho) * g ** 2
    denominator = velocity + epsilon            (centered: velocity - average_gradient ** 2 + epsilon,
                                                 average_gradient = rho * average_gradient + (1 - rho) * g)
    increment = lr * g / sqrt(denominator)
    momentum > 0: m = momentum * m + increment;  var -= m
    otherwise:    var -= increment
"""
from ...ops import math_ops
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (``learning_rate=0.001``, ``rho=0.9``, ``momentum=0.0``, ``epsilon=1e-7``, ``centered=False``)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build(self, var_list):
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum > 0 else []
        self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient") \
            if self.centered else []

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = math_ops.cast(learning_rate, dtype)
        gradient = math_ops.cast(gradient, dtype)
        index = self._get_variable_index(variable)
        velocity = self._velocities[index]
        rho = self.rho
        velocity.assign(rho * velocity + (1 - rho) * math_ops.square(gradient))
        if self.centered:
            average_grad = self._average_gradients[index]
            average_grad.assign(rho * average_grad + (1 - rho) * gradient)
            denominator = velocity - math_ops.square(average_grad) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * gradient / math_ops.sqrt(denominator)
        if self.momentum > 0:
            m = self._momentums[index]
            m.assign(self.momentum * m + increment)
            variable.assign_sub(m)
        else:
            variable.assign_sub(increment)

    def get_config(self):
        return dict(super().get_config(), rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                    centered=self.centered)
