"""The optimizer base class: turn gradients into variable updates, Keras 3 style.

``optimizer.apply_gradients(zip(grads, variables))`` does, in order:

1. **build** (first call only): remember the variables and create the *slot
   variables* each one needs (``momentum``, ``velocity``...) with
   :meth:`Optimizer.add_variable_from_reference`. Slots are created on first use
   because only then are the variables known. Under ``tf.function`` the first
   trace creates them, eagerly and once (variables created while tracing are
   lifted out of the graph); later traces find the optimizer built and create
   nothing, which is exactly the rule ``tf.function`` enforces;
2. drop ``None`` gradients (with a warning), densify ``tf.IndexedSlices`` (the
   gradients of ``tf.gather``/embeddings: Keras 3 updates some slots with scatters,
   the engine adds the rows into a dense gradient first, so every algorithm sees a
   plain tensor and the update has the same values), clip (``clipnorm``, ``clipvalue``,
   ``global_clipnorm``);
3. apply decoupled **weight decay** ``v -= v * weight_decay * lr`` (AdamW);
4. sum the gradients across replicas (a hook for tf.distribute, a no-op
   without it), then call :meth:`update_step` for each ``(gradient, variable)``: the algorithm
   proper (``sgd.py``, ``adam.py``, ``rmsprop.py``);
5. ``iterations += 1``.

``learning_rate`` is a non-trainable variable (so changing it does not retrace
a ``tf.function``), or a schedule evaluated at ``iterations`` on every step.
``iterations`` is an int64 variable. ``optimizer.variables`` lists
``[iterations, learning_rate, slots...]``, as Keras 3 does.
"""
import warnings

import numpy as np

from ...eager.tape import GradientTape
from ...framework import dtypes
from ...framework.context import ctx
from ...framework.indexed_slices import IndexedSlices, densify
from ...framework.name_scope import name_scope
from ...framework.tensor import convert_to_tensor
from ...ops import math_ops, reduction_ops
from ...variables import Variable, VariableAggregation
from .. import backend
from .schedules import LearningRateSchedule

__all__ = ["Optimizer"]


class Optimizer:
    """Base class of Keras optimizers; subclasses implement ``build`` (slots) and ``update_step``."""

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.")
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if use_ema or gradient_accumulation_steps:
            raise NotImplementedError("use_ema and gradient_accumulation_steps are not implemented in the engine.")
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f"Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.name = name or backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        self.built = False
        self._variables = []
        self._trainable_variables = []
        self._index = {}
        self._distribution_strategy = backend.current_strategy()
        self._iterations = self.add_variable((), initializer="zeros", dtype="int64", name="iteration",
                                             aggregation="only_first_replica")
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            if not isinstance(learning_rate, float):
                raise ValueError(f"Argument `learning_rate` should be float, or an instance of "
                                 f"LearningRateSchedule, or a callable (that takes in the current iteration value "
                                 f"and returns the corresponding learning rate value). Received instead: "
                                 f"learning_rate={learning_rate}")
            self._learning_rate = self.add_variable((), initializer=learning_rate, dtype=backend.floatx(),
                                                    name="learning_rate", aggregation="only_first_replica")

    # --- variables ------------------------------------------------------------------------------
    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", name=None):
        """A non-trainable optimizer variable (``initializer``: ``"zeros"`` or a number)."""
        dtype = dtypes.as_dtype(dtype or backend.floatx())
        shape = tuple(shape)
        fill = 0 if initializer == "zeros" else initializer
        variable = Variable(lambda: convert_to_tensor(np.full(shape, fill, dtype.as_numpy_dtype)), trainable=False,
                            dtype=dtype, name=f"{self.name}/{name}",
                            aggregation={"none": VariableAggregation.NONE, "sum": VariableAggregation.SUM,
                                         "mean": VariableAggregation.MEAN,
                                         "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}[aggregation])
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A slot shaped and typed like ``reference_variable`` (e.g. ``dense_kernel_momentum``)."""
        base = (getattr(reference_variable, "path", None) or reference_variable.name.split(":")[0]).replace("/", "_")
        return self.add_variable(reference_variable.shape.as_list(), initializer=initializer,
                                 dtype=reference_variable.dtype, name=f"{base}_{name}")

    def add_optimizer_variables(self, var_list, names):
        """For each variable, one slot per name (all of one variable's slots, then the next variable's)."""
        single = isinstance(names, str)
        names = [names] if single else list(names)
        slots = [[] for _ in names]
        for variable in var_list:
            for i, name in enumerate(names):
                slots[i].append(self.add_variable_from_reference(variable, name))
        return slots[0] if single else slots

    @property
    def variables(self):
        return list(self._variables)

    @property
    def iterations(self):
        """The number of steps applied so far (an int64 variable)."""
        return self._iterations

    def _var_key(self, variable):
        """The key of a model variable in the slot tables (a tf.distribute hook: replicas share one key)."""
        return id(variable)

    def _get_variable_index(self, variable):
        return self._index[self._var_key(variable)]

    def build(self, var_list):
        """Remember the variables; subclasses create their slot variables here."""
        self._trainable_variables = list(var_list)
        self._index = {self._var_key(v): i for i, v in enumerate(var_list)}
        self.built = True

    # --- the learning rate ----------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate: the variable, or the schedule evaluated at ``iterations``."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations)
        if isinstance(lr, Variable):
            return lr
        return lr()

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, LearningRateSchedule) or (callable(value) and not isinstance(value, Variable)):
            self._learning_rate = value
            return
        if isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` "
                            "constructor argument, hence its learning rate is not settable. If you need the "
                            "learning rate to be settable, you should instantiate the optimizer with a float "
                            "`learning_rate` argument.")
        self._learning_rate.assign(value)

    # --- applying gradients ---------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        """``apply_gradients(zip(grads, vars))``: one optimization step. Returns ``iterations``."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            return self._iterations
        grads, trainable_variables = zip(*grads_and_vars)
        self.apply(list(grads), list(trainable_variables))
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Apply ``grads`` to ``trainable_variables`` (see the module docstring for the order of work)."""
        if len(grads) == 0:
            return self._iterations
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built on "
                                 "a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        with name_scope(self.name):
            if not self.built:
                replica = ctx.replica_context
                if replica is not None:  # inside strategy.run: build (create slots) once, for all replicas
                    replica.merge_call(lambda strategy: self.build(trainable_variables))
                else:
                    self.build(trainable_variables)
                self.built = True
            self._check_variables_are_known(trainable_variables)
            grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
            grads = [densify(g) if isinstance(g, IndexedSlices) else g for g in grads]
            if self.loss_scale_factor is not None:
                grads = [g / self.loss_scale_factor for g in grads]
            grads = self._clip_gradients(grads)
            self._apply_weight_decay(trainable_variables)
            grads = self._all_reduce_sum_gradients(grads)
            learning_rate = self.learning_rate
            for grad, variable in zip(grads, trainable_variables):
                self.update_step(grad, variable, learning_rate)
            for variable in trainable_variables:
                if variable.constraint is not None:
                    variable.assign(variable.constraint(variable))
            self._iterations.assign_add(1)
        return self._iterations

    def minimize(self, loss, var_list, tape=None):
        """``loss`` a tensor (with the ``tape`` that computed it) or a zero-argument callable; one step.

        (From the tf.keras 2 optimizer API; Keras 3 dropped it. Kept because TF 2 code uses it.)
        """
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, "
                             "tape=None.".format(loss=loss))
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def update_step(self, gradient, variable, learning_rate):
        """Update ``variable`` (and its slots) from ``gradient``. Implemented by each algorithm."""
        raise NotImplementedError

    # --- the steps of apply ------------------------------------------------------------------------
    def _check_variables_are_known(self, variables):
        for v in variables:
            if self._var_key(v) not in self._index:
                raise ValueError(f"Unknown variable: {v!r}. This optimizer can only be called for the variables it "
                                 f"was originally built with. When working with a new set of variables, you should "
                                 f"recreate a new optimizer instance.")

    def _filter_empty_gradients(self, grads, variables):
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        missing = [v.name for g, v in zip(grads, variables) if g is None]
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss. If using "
                          f"`model.compile()`, did you forget to provide a `loss` argument?")
        return [g for g, _ in kept], [v for _, v in kept]

    def _all_reduce_sum_gradients(self, grads):
        """The tf.distribute hook: inside ``strategy.run``, sum each gradient over the replicas.

        Without a replica context (no strategy) the gradients are returned unchanged.
        A replica context provides ``all_reduce("SUM", list_of_tensors)``.
        """
        replica = ctx.replica_context
        if replica is None:
            return grads
        return list(replica.all_reduce("SUM", list(grads)))

    def _clip_gradients(self, grads):
        if self.clipnorm and self.clipnorm > 0:
            return [_clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            v = self.clipvalue
            return [math_ops.clip_by_value(g, convert_to_tensor(-v, dtype=g.dtype), convert_to_tensor(v, dtype=g.dtype))
                    for g in grads]
        return grads

    def _use_weight_decay(self, variable):
        excluded = getattr(self, "_exclude_from_weight_decay", set())
        names = getattr(self, "_exclude_from_weight_decay_names", ())
        return self._var_key(variable) not in excluded and not any(n in variable.name for n in names)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exempt variables (or variables whose name contains one of ``var_names``) from weight decay."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        self._exclude_from_weight_decay = {self._var_key(v) for v in var_list or []}
        self._exclude_from_weight_decay_names = tuple(var_names or ())

    def _apply_weight_decay(self, variables):
        """Decoupled weight decay (Loshchilov & Hutter): ``v -= v * weight_decay * lr``, before the update."""
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = math_ops.cast(self.learning_rate, variable.dtype)
                wd = convert_to_tensor(self.weight_decay, dtype=variable.dtype)
                variable.assign_sub(variable * wd * lr)

    def get_config(self):
        lr = self._learning_rate
        return {"name": self.name, "learning_rate": float(lr.numpy()) if isinstance(lr, Variable) else lr,
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue}

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _clip_by_norm(g, clip_norm):
    norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(g)))
    clip = convert_to_tensor(clip_norm, dtype=g.dtype)
    return math_ops.divide(math_ops.multiply(g, clip), math_ops.maximum(norm, clip))


def _clip_by_global_norm(grads, clip_norm):
    total = math_ops.sqrt(math_ops.add_n([reduction_ops.reduce_sum(math_ops.square(g)) for g in grads]))
    clip = convert_to_tensor(clip_norm, dtype=grads[0].dtype)
    scale = math_ops.divide(clip, math_ops.maximum(total, clip))
    return [math_ops.multiply(g, scale) for g in grads]


