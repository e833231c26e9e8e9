"""Recurrent layers: ``SimpleRNN``, ``LSTM``, ``GRU``, the generic ``RNN`` and ``Bidirectional``.

A recurrent layer reads a sequence ``(batch, timesteps, features)`` one step at a
time, carrying a *state* from step to step. Keras splits the work in two:

* a **cell** (``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``) owns the weights and
  computes ONE step: ``output, new_states = cell(x_t, states)``;
* the **RNN layer** runs the loop over time: it starts from zero states (or
  ``initial_state``), feeds each step to the cell, and returns the last output
  (or all of them with ``return_sequences=True``, plus the final states with
  ``return_state=True``). ``go_backwards=True`` reads the sequence from the end;
  the returned sequence is then in processing order (reversed), as in Keras.

The weights follow Keras' layout exactly, so ``set_weights`` with weights taken
from a Keras layer gives the same outputs (the tests check this against
values recorded from TF 2.21 / Keras 3.15):

* ``kernel`` ``(features, k * units)``, ``recurrent_kernel`` ``(units, k * units)``,
  ``bias`` ``(k * units,)``, with the ``k`` gate blocks side by side:
  SimpleRNN ``k = 1``; LSTM ``k = 4`` in the order *input, forget, cell, output*;
  GRU ``k = 3`` in the order *update (z), reset (r), candidate (h)*.
* GRU with ``reset_after=True`` (Keras 3's default, the cuDNN variant) has a
  bias of shape ``(2, 3 * units)``: row 0 is added to the input projection,
  row 1 to the recurrent projection, and the reset gate multiplies the
  *projected* state: ``hh = tanh(x W_h + b_h + r * (h R_h + b'_h))``. With
  ``reset_after=False`` it multiplies the state first:
  ``hh = tanh(x W_h + b_h + (r * h) R_h)``.
* LSTM's ``unit_forget_bias=True`` (the default) initializes the forget-gate
  bias to ones.

**Two loops.** Keras-on-TF runs the time loop as a ``tf.while_loop`` (or a
fused cuDNN kernel). The engine picks by what it knows about the time axis:

* **known number of timesteps** (NumPy data, ``Input(shape=(10, 8))``, ``fit``'s
  traced step, which relaxes only the batch dimension): the loop is *unrolled*
  in Python, one copy of the step per timestep; gradients flow through the
  ordinary ops (backpropagation through time is the tape walking back through
  the unrolled steps). This is the faster path on NumPy.
* **unknown number of timesteps** (``Input(shape=(None, 8))``, a
  ``tf.function`` traced with ``TensorSpec([None, None, 8])``): a
  ``tf.while_loop`` over ``t < tf.shape(x)[1]``, reading step ``t`` from a
  ``tf.TensorArray`` of the time-major inputs and writing each output to
  another one, as Keras' TF backend does (``keras/src/backend/tensorflow/rnn.py``).
  Its gradient is the loop's gradient (``WhileGrad``, see
  ``engine/ops/control_flow_ops.py``). A zero-length sequence returns zeros
  for the last output, as Keras does.

**Masking.** With a mask (``Embedding(mask_zero=True)`` or ``Masking`` before
the layer, or ``layer(x, mask=m)``; ``m`` is boolean ``(batch, timesteps)``),
a masked step leaves the states unchanged and its output repeats the previous
step's output (zeros before the first real step); with
``zero_output_for_mask=True`` (which ``Bidirectional`` sets when it returns
sequences) a masked step outputs zeros. Both loops do it the same way, with
``tf.where(mask_t, new, old)`` per step, as Keras' TF backend does. The output
sequence keeps the mask (``return_sequences=True``); the last output has none.

``unroll`` is accepted and ignored. Not implemented: ``stateful=True``,
and ``dropout``/``recurrent_dropout`` other than 0.
"""
from ...framework import dtypes
from ...framework.tensor import Tensor, constant, convert_to_tensor
from ...ops import array_ops, control_flow_ops, linalg_ops, math_ops
from ...ops.tensor_array_ops import TensorArray
from ...util import nest
from .. import activations, initializers, regularizers
from .layer import Layer

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "SimpleRNN", "LSTM", "GRU", "Bidirectional"]


# --------------------------------------------------------------------------------------
# Cells: one time step
# --------------------------------------------------------------------------------------
class _Cell(Layer):
    """Shared arguments of the cells: initializers, regularizers, constraints of the three weights."""

    gates = 1

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got "
                             f"{units}.")
        if dropout or recurrent_dropout:
            raise NotImplementedError(f"{type(self).__name__}: dropout / recurrent_dropout are not implemented in "
                                      f"the engine (use a Dropout layer before the RNN).")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _build_kernels(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"Layer '{self.name}': the last dimension of the inputs (the features) must be "
                             f"defined. Received input shape {input_shape}.")
        width = self.gates * self.units
        self.kernel = self.add_weight(shape=(input_dim, width), name="kernel", initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, width), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)

    def _add_bias(self, shape, initializer=None):
        self.bias = self.add_weight(shape=shape, name="bias", initializer=initializer or self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def get_config(self):
        return dict(super().get_config(), units=self.units, activation=activations.serialize(self.activation),
                    use_bias=self.use_bias)


class SimpleRNNCell(_Cell):
    """``h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)``; the output is ``h_t``."""

    def build(self, input_shape):
        self._build_kernels(input_shape)
        self.bias = None
        if self.use_bias:
            self._add_bias((self.units,))

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, (list, tuple)) else states
        h = linalg_ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        output = self.activation(h + linalg_ops.matmul(h_prev, self.recurrent_kernel))
        return output, [output]


class LSTMCell(_Cell):
    """Long short-term memory: two states, ``h`` (the output) and the cell memory ``c``.

    ``z = x @ kernel + h @ recurrent_kernel + bias``, split into four blocks:
    ``i = rec_act(z_i)``, ``f = rec_act(z_f)``, ``c = f * c + i * act(z_c)``,
    ``o = rec_act(z_o)``, ``h = o * act(c)``.
    """

    gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self):
        return [self.units, self.units]

    def build(self, input_shape):
        self._build_kernels(input_shape)
        self.bias = None
        if self.use_bias:
            base, units = self.bias_initializer, self.units

            def forget_bias_ones(shape, dtype=None):
                return array_ops.concat([base((units,), dtype=dtype), initializers.get("ones")((units,), dtype),
                                         base((2 * units,), dtype=dtype)], axis=0)
            self._add_bias((4 * self.units,), forget_bias_ones if self.unit_forget_bias else None)

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states
        z = linalg_ops.matmul(inputs, self.kernel) + linalg_ops.matmul(h_prev, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        z_i, z_f, z_c, z_o = array_ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_prev + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        return dict(super().get_config(), recurrent_activation=activations.serialize(self.recurrent_activation),
                    unit_forget_bias=self.unit_forget_bias)


class GRUCell(_Cell):
    """Gated recurrent unit: update gate ``z``, reset gate ``r``, candidate ``hh``;
    ``h = z * h_prev + (1 - z) * hh`` (see the module docstring for ``reset_after``)."""

    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True, reset_after=True,
                 **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def build(self, input_shape):
        self._build_kernels(input_shape)
        self.bias = None
        if self.use_bias:
            self._add_bias((2, 3 * self.units) if self.reset_after else (3 * self.units,))

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, (list, tuple)) else states
        u = self.units
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = array_ops.unstack(self.bias, num=2, axis=0)
            else:
                input_bias = self.bias
        matrix_x = linalg_ops.matmul(inputs, self.kernel)
        if input_bias is not None:
            matrix_x = matrix_x + input_bias
        x_z, x_r, x_h = array_ops.split(matrix_x, 3, axis=-1)
        if self.reset_after:
            matrix_inner = linalg_ops.matmul(h_prev, self.recurrent_kernel)
            if recurrent_bias is not None:
                matrix_inner = matrix_inner + recurrent_bias
            rec_z, rec_r, rec_h = array_ops.split(matrix_inner, 3, axis=-1)
        else:
            rec_zr, rec_kernel_h = array_ops.split(self.recurrent_kernel, [2 * u, u], axis=-1)
            rec_z, rec_r = array_ops.split(linalg_ops.matmul(h_prev, rec_zr), 2, axis=-1)
        z = self.recurrent_activation(x_z + rec_z)
        r = self.recurrent_activation(x_r + rec_r)
        if self.reset_after:
            rec_h = r * rec_h
        else:
            rec_h = linalg_ops.matmul(r * h_prev, rec_kernel_h)
        hh = self.activation(x_h + rec_h)
        h = z * h_prev + (1.0 - z) * hh
        return h, [h]

    def get_config(self):
        return dict(super().get_config(), recurrent_activation=activations.serialize(self.recurrent_activation),
                    reset_after=self.reset_after)


# --------------------------------------------------------------------------------------
# The loop over time
# --------------------------------------------------------------------------------------
class RNN(Layer):
    """Run ``cell`` over the time axis of ``(batch, timesteps, features)`` inputs (statically unrolled).

    ``call(sequences, initial_state=None, training=None)``; see the module docstring.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            raise NotImplementedError("RNN: stacked cells (a list of cells) are not implemented in the engine; "
                                      "stack RNN layers with return_sequences=True instead.")
        if stateful:
            raise NotImplementedError("RNN: stateful=True is not implemented in the engine.")
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(f"Argument `cell` should have a `call` method and a `state_size` attribute. "
                             f"Received: cell={cell}")
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = False
        self.unroll = unroll
        self.zero_output_for_mask = zero_output_for_mask

    @property
    def _state_sizes(self):
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) else [size]

    def build(self, sequences_shape, initial_state_shape=None):
        if len(sequences_shape) != 3:
            raise ValueError(f"Layer '{self.name}' expects inputs of rank 3 (batch, timesteps, features). "
                             f"Received input shape {tuple(sequences_shape)}.")
        if not self.cell.built:
            self.cell.build((sequences_shape[0], sequences_shape[-1]))

    def _zero_states(self, sequences):
        batch = sequences.shape[0]
        if batch is None:
            batch = array_ops.shape(sequences)[0]
            return [array_ops.zeros(array_ops.stack([batch, size]), dtype=sequences.dtype)
                    for size in self._state_sizes]
        return [array_ops.zeros([batch, size], dtype=sequences.dtype) for size in self._state_sizes]

    def _initial_states(self, sequences, initial_state):
        if initial_state is None:
            return self._zero_states(sequences)
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        if len(states) != len(self._state_sizes):
            raise ValueError(f"Layer '{self.name}' expects {len(self._state_sizes)} state(s), but it received "
                             f"{len(states)} initial state(s).")
        out = []
        for s in states:
            s = s if isinstance(s, Tensor) or hasattr(s, "_is_variable") else convert_to_tensor(s)
            if s.dtype != sequences.dtype:
                s = math_ops.cast(s, sequences.dtype)
            out.append(s)
        return out

    _masks_by_default = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        states = self._initial_states(sequences, initial_state)
        if mask is not None:
            mask = nest.flatten(mask)[0]
            if mask.dtype != dtypes.bool:
                mask = math_ops.cast(mask, dtypes.bool)
        if sequences.shape[1] is None:
            result, states = self._while_loop(sequences, states, training, mask)
        else:
            result, states = self._unrolled(sequences, states, training, mask)
        if self.return_state:
            return [result] + states
        return result

    def compute_mask(self, inputs, mask):
        """The input mask for the output sequence (``return_sequences``), else none; states have none."""
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self._state_sizes)
        return output_mask

    def _masked(self, mask_t, output, prev_output, new_states, states):
        """Keras' masked step: where the step is masked, keep the old states and the previous (or zero) output."""
        keep = array_ops.expand_dims(mask_t, -1)
        fallback = array_ops.zeros_like(output) if (self.zero_output_for_mask or prev_output is None) \
            else prev_output
        output = array_ops.where(keep, output, fallback)
        states = [array_ops.where(keep, new, old) for new, old in zip(new_states, states)]
        return output, states

    def _step(self, x_t, states, training):
        output, states = self.cell.call(x_t, states) if not _takes_training(self.cell) else \
            self.cell.call(x_t, states, training=training)
        return output, list(states) if isinstance(states, (list, tuple)) else [states]

    def _unrolled(self, sequences, states, training, mask=None):
        """The static loop: one copy of the step per (known) timestep."""
        steps = array_ops.unstack(sequences, num=sequences.shape[1], axis=1)
        masks = [None] * len(steps) if mask is None else array_ops.unstack(mask, num=sequences.shape[1], axis=1)
        if self.go_backwards:
            steps, masks = steps[::-1], masks[::-1]
        outputs = []
        for x_t, mask_t in zip(steps, masks):
            output, new_states = self._step(x_t, states, training)
            if mask_t is None:
                states = new_states
            else:
                output, states = self._masked(mask_t, output, outputs[-1] if outputs else None, new_states,
                                              states)
            outputs.append(output)
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return result, states

    def _while_loop(self, sequences, states, training, mask=None):
        """The dynamic loop: ``tf.while_loop`` over an unknown number of timesteps (TensorArrays in and out)."""
        time_major = array_ops.transpose(sequences, [1, 0, 2])
        if self.go_backwards:
            time_major = array_ops.reverse(time_major, [0])
        num_steps = array_ops.shape(time_major)[0]
        inputs_ta = TensorArray(sequences.dtype, size=num_steps, element_shape=time_major.shape[1:])
        inputs_ta = inputs_ta.unstack(time_major)
        out_size = self.cell.output_size
        outputs_ta = TensorArray(sequences.dtype, size=num_steps,
                                 element_shape=[sequences.shape[0], out_size])
        last = array_ops.zeros_like(states[0]) if self._state_sizes[0] == out_size else \
            array_ops.zeros(array_ops.stack([array_ops.shape(sequences)[0], out_size]), dtype=sequences.dtype)
        n_states = len(states)
        mask_ta = None
        if mask is not None:
            mask_tm = array_ops.transpose(mask, [1, 0])
            if self.go_backwards:
                mask_tm = array_ops.reverse(mask_tm, [0])
            mask_ta = TensorArray(dtypes.bool, size=num_steps, element_shape=mask_tm.shape[1:]).unstack(mask_tm)

        def cond(t, *_):
            return t < num_steps

        def body(t, outputs_ta, last, *states):
            output, new_states = self._step(inputs_ta.read(t), list(states), training)
            if mask_ta is not None:
                output, new_states = self._masked(mask_ta.read(t), output, last, new_states, list(states))
            return (t + 1, outputs_ta.write(t, output), output) + tuple(new_states)
        loop_vars = (constant(0, dtype="int32"), outputs_ta, last) + tuple(states)
        result = control_flow_ops.while_loop(cond, body, loop_vars)
        _, outputs_ta, last = result[:3]
        states = list(result[3:3 + n_states])
        if self.return_sequences:
            return array_ops.transpose(outputs_ta.stack(), [1, 0, 2]), states
        return last, states

    @property
    def units(self):
        return self.cell.units

    def _maybe_build_shape(self, shape):
        """Build from a shape (``Bidirectional`` calls its layers' ``call`` directly)."""
        if not self.built:
            self.build(shape)

    def get_config(self):
        return dict(super().get_config(), return_sequences=self.return_sequences, return_state=self.return_state,
                    go_backwards=self.go_backwards)


def _takes_training(cell):
    return getattr(cell, "_call_has_training_arg", False)


class _SimpleRNNBase(RNN):
    """A named RNN layer that builds its own cell from the layer's arguments."""

    cell_class = None
    _layer_args = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask")

    def __init__(self, units, **kwargs):
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs)
                        if k in self._layer_args or k in ("name", "trainable", "dtype", "activity_regularizer",
                                                          "input_shape", "batch_size", "batch_input_shape",
                                                          "input_dim")}
        cell_kwargs = dict(kwargs)
        self._config = dict(kwargs, units=units, **{k: v for k, v in layer_kwargs.items() if k in self._layer_args})
        cell = self.cell_class(units, name=f"{self.cell_class.__name__[:-4].lower()}_cell",
                               dtype=layer_kwargs.get("dtype"), **cell_kwargs)
        super().__init__(cell, **layer_kwargs)

    def __getattr__(self, name):
        """``layer.activation``, ``layer.kernel``... are the cell's (as Keras exposes them)."""
        if name.startswith("_") or name == "cell":
            raise AttributeError(name)
        cell = self.__dict__.get("cell")
        if cell is not None and hasattr(cell, name):
            return getattr(cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _clone_config(self, **overrides):
        return dict(self._config, **overrides)


class SimpleRNN(_SimpleRNNBase):
    """A fully connected RNN: ``h_t = tanh(x_t W + h_{t-1} U + b)``. Weights: kernel, recurrent_kernel, bias.

    Statically unrolled over the (known) number of timesteps; see the module docstring.
    """

    cell_class = SimpleRNNCell


class LSTM(_SimpleRNNBase):
    """Long short-term memory layer (Hochreiter & Schmidhuber, 1997). States: ``[h, c]``.

    Gates in Keras' order *i, f, c, o*; ``recurrent_activation="sigmoid"``.
    Statically unrolled over the (known) number of timesteps; see the module docstring.
    """

    cell_class = LSTMCell


class GRU(_SimpleRNNBase):
    """Gated recurrent unit layer (Cho et al., 2014); ``reset_after=True`` by default, as Keras 3.

    Gates in Keras' order *z, r, h*. Statically unrolled over the (known) number of
    timesteps; see the module docstring.
    """

    cell_class = GRUCell


# --------------------------------------------------------------------------------------
# Bidirectional
# --------------------------------------------------------------------------------------
class Bidirectional(Layer):
    """Run a recurrent layer forwards and a copy of it backwards, and merge the two outputs.

    ``Bidirectional(LSTM(8, return_sequences=True))``: the forward layer is a copy
    of the given layer (named ``forward_<name>``), the backward layer a copy with
    ``go_backwards`` flipped (``backward_<name>``); weights: forward's, then
    backward's. The backward output sequence is reversed back into input order
    before merging with ``merge_mode``: ``"concat"`` (default, last axis),
    ``"sum"``, ``"mul"``, ``"ave"`` or ``None`` (a list of both). With
    ``return_state`` the forward states then the backward states follow.
    """

    _MERGE_MODES = ("sum", "mul", "ave", "concat", None)

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, _SimpleRNNBase):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `keras.layers.SimpleRNN`, `LSTM` or "
                             f"`GRU` layer in the engine. Received: {layer}")
        if merge_mode not in self._MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             f"{{'sum', 'mul', 'ave', 'concat', None}}")
        cls = type(layer)
        self.forward_layer = cls(**layer._clone_config(name="forward_" + layer.name))
        if backward_layer is None:
            self.backward_layer = cls(**layer._clone_config(name="backward_" + layer.name,
                                                            go_backwards=not layer.go_backwards))
        else:
            self.backward_layer = backward_layer
        # As Keras: when returning sequences, masked steps output zeros in both directions.
        self.forward_layer.zero_output_for_mask = self.forward_layer.return_sequences
        self.backward_layer.zero_output_for_mask = self.backward_layer.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        if weights is not None:
            raise NotImplementedError("Bidirectional(weights=...) is not implemented; use set_weights after build.")

    def build(self, sequences_shape, initial_state_shape=None):
        self.forward_layer._maybe_build_shape(sequences_shape)
        self.backward_layer._maybe_build_shape(sequences_shape)

    _masks_by_default = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer.call(sequences, initial_state=forward_state, mask=mask, training=training)
        y_rev = self.backward_layer.call(sequences, initial_state=backward_state, mask=mask, training=training)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = array_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2.0
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output

    def compute_mask(self, inputs, mask):
        """As Keras: the input mask for the merged output sequence; none for a last output or the states."""
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = mask if self.merge_mode else [mask, mask]
        else:
            output_mask = None if self.merge_mode else [None, None]
        if self.return_state:
            n = len(self.forward_layer._state_sizes) * 2
            output_mask = (output_mask if isinstance(output_mask, list) else [output_mask]) + [None] * n
        return output_mask

    def get_config(self):
        return dict(super().get_config(), merge_mode=self.merge_mode)

