"""The functional model: ``tf.keras.Model(inputs, outputs)`` over a graph of layer calls.

Construction walks the graph backwards from ``outputs`` through each
KerasTensor's ``_keras_history`` (which layer call produced it) to the
``inputs``, exactly as Keras' ``map_graph`` does:

1. a depth-first walk from the outputs lists the nodes (layer calls), parents
   before children (:func:`_build_map`);
2. every node gets a *depth*: 0 for the output nodes, and a parent is one
   deeper than its deepest child; layers are ordered by decreasing depth, so
   ``model.layers`` starts with the ``InputLayer`` s;
3. calling the model replays the nodes from the deepest (the inputs) to depth 0,
   feeding each layer the real tensors computed for its input KerasTensors.
"""
import collections

from ...util import nest
from .. import backend
from ..keras_tensor import KerasTensor
from ..layers.input_layer import InputLayer
from ..serialization import deserialize_keras_object, deserialize_value, serialize_keras_object, serialize_value
from .model import Model

__all__ = ["Functional"]


def _build_map(inputs, outputs):
    """Nodes in decreasing depth order (a topological order) and each layer's first-visit index."""
    finished, in_progress, ordered, layer_indices = set(), set(), [], {}
    input_ids = {id(t) for t in inputs}

    def visit(tensor):
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(f"Tensor {tensor} from layer '{layer.name}' is part of a cycle.")
        layer_indices.setdefault(layer, len(layer_indices))
        in_progress.add(id(node))
        if not node.is_input and id(tensor) not in input_ids:
            for parent_tensor in node.input_tensors:
                visit(parent_tensor)
        in_progress.discard(id(node))
        finished.add(id(node))
        ordered.append(node)
    for t in outputs:
        visit(t)
    return ordered, layer_indices


def map_graph(inputs, outputs):
    """``(nodes_by_depth, layers)``: the graph from ``inputs`` to ``outputs`` (see the module docstring)."""
    ordered, layer_indices = _build_map(inputs, outputs)
    node_depths, layer_depths = {}, {}
    for node in reversed(ordered):
        depth = max(node_depths.setdefault(node, 0), layer_depths.get(node.operation, 0))
        layer_depths[node.operation] = depth
        node_depths[node] = depth
        for parent in node.parent_nodes:
            node_depths[parent] = max(depth + 1, node_depths.get(parent, 0))
    for t in inputs:   # inputs not connected to the outputs still belong to the model
        layer = t._keras_history.operation
        if layer not in layer_depths:
            layer_depths[layer] = 0
            layer_indices[layer] = -1
            node_depths[layer._inbound_nodes[0]] = 0
    nodes_by_depth = collections.defaultdict(list)
    for node, depth in node_depths.items():
        nodes_by_depth[depth].append(node)
    layers_by_depth = collections.defaultdict(list)
    for layer, depth in layer_depths.items():
        layers_by_depth[depth].append(layer)
    layers = []
    for depth in sorted(layers_by_depth, reverse=True):
        layers.extend(sorted(layers_by_depth[depth], key=lambda layer: layer_indices[layer]))
    # every tensor a node needs must be computable from the inputs
    computable = {id(t) for t in inputs}
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if node.is_input and not any(id(t) in computable for t in node.output_tensors):
                raise ValueError(f"Graph disconnected: the outputs depend on input '{node.operation.name}', which is "
                                 f"not one of the model's `inputs` (Keras: output is not connected to `inputs`).")
            for t in node.input_tensors:
                if id(t) not in computable and not node.is_input:
                    done = [layer.name for layer in layers if layer is not node.operation]
                    raise ValueError(f"Graph disconnected: cannot find parent for tensor {t} at layer "
                                     f"'{node.operation.name}'. The following previous layers were accessed "
                                     f"without issue: {done}")
            computable.update(id(t) for t in node.output_tensors)
    return nodes_by_depth, layers


class Functional(Model):
    """A model defined by its input and output KerasTensors."""

    def __init__(self, inputs, outputs, name=None, **kwargs):
        super().__init__(name=name or backend.unique_object_name("functional"), **kwargs)
        flat_inputs, flat_outputs = nest.flatten(inputs), nest.flatten(outputs)
        for t in flat_inputs + flat_outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `inputs` and `outputs` values must be KerasTensors (from tf.keras.Input and "
                                 f"layer calls). Received: {t!r}")
        for t in flat_inputs:
            if not isinstance(t._keras_history.operation, InputLayer):
                raise ValueError(f"`inputs` must come from `tf.keras.Input`. Received {t!r}, produced by layer "
                                 f"'{t._keras_history.operation.name}'.")
        object.__setattr__(self, "_inputs_struct", inputs)
        object.__setattr__(self, "_outputs_struct", outputs)
        object.__setattr__(self, "_flat_inputs", flat_inputs)
        object.__setattr__(self, "_flat_outputs", flat_outputs)
        nodes_by_depth, layers = map_graph(flat_inputs, flat_outputs)
        object.__setattr__(self, "_nodes_by_depth", nodes_by_depth)
        for layer in layers:
            self._layers.append(layer)
        self._build_input_shape = nest.map_structure(lambda t: t.shape, inputs)
        self._output_shape = nest.map_structure(lambda t: t.shape, outputs)
        self.built = True

    @property
    def inputs(self):
        return list(self._flat_inputs)

    @property
    def outputs(self):
        return list(self._flat_outputs)

    @property
    def output_names(self):
        """The names of the layers that produce the outputs (how ``compile`` matches losses to outputs)."""
        return [t._keras_history.operation.name for t in self._flat_outputs]

    @property
    def input_shape(self):
        shapes = [tuple(t.shape) for t in self._flat_inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [tuple(t.shape) for t in self._flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def get_config(self):
        """The graph of layer calls in Keras 3's layout (``layers`` with ``inbound_nodes``, ``input_layers``,
        ``output_layers``); see ``saving.py``."""
        return functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return functional_from_config(cls, config, custom_objects)

    def call(self, inputs, training=None, mask=None):
        """Replay the layer calls on real tensors, deepest nodes first.

        ``mask`` (one per input, optional) is attached to the inputs; masks then
        travel on the tensors from layer to layer (see ``layers/layer.py``).
        """
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            # a dict of inputs feeds the ``Input`` layers by name, as in Keras
            names = [t._keras_history.operation.name for t in self._flat_inputs]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Missing data for input(s) {missing} of model '{self.name}'. Expected the "
                                 f"following keys: {names}. Received keys: {list(inputs)}")
            inputs = [inputs[n] for n in names]
        flat = nest.flatten(inputs)
        if len(flat) != len(self._flat_inputs):
            raise ValueError(f"Model '{self.name}' expects {len(self._flat_inputs)} input(s), but it received "
                             f"{len(flat)} input tensors.")
        if mask is not None:
            for x, m in zip(flat, nest.flatten(mask) if isinstance(mask, (list, tuple)) else [mask]):
                if m is not None:
                    backend.set_keras_mask(x, m)
        values = {id(kt): value for kt, value in zip(self._flat_inputs, flat)}
        for depth in sorted(self._nodes_by_depth, reverse=True):
            for node in self._nodes_by_depth[depth]:
                if node.is_input:
                    continue
                args, kwargs = nest.map_structure(
                    lambda x: values[id(x)] if isinstance(x, KerasTensor) else x, node.arguments)
                outputs = node.operation(*args, **kwargs)
                for kt, value in zip(node.output_tensors, nest.flatten(outputs)):
                    values[id(kt)] = value
        return nest.pack_sequence_as(self._outputs_struct, [values[id(kt)] for kt in self._flat_outputs])


Model._functional_class = Functional   # ``Model(inputs, outputs)`` builds a Functional (see ``Model.__new__``)


# --------------------------------------------------------------------------------------
# Configs
# --------------------------------------------------------------------------------------
def _model_nodes(model):
    """Each layer's nodes that belong to this model, in the layer's call order."""
    nodes = {id(n) for depth in model._nodes_by_depth.values() for n in depth}
    return {layer: [n for n in layer._inbound_nodes if id(n) in nodes] for layer in model.layers}


def functional_config(model):
    """``Functional.get_config()``: Keras 3's layout (see ``saving.py``)."""
    per_layer = _model_nodes(model)
    node_index = {id(n): i for nodes in per_layer.values() for i, n in enumerate(nodes)}

    def ref(t):
        layer, index, tensor_index = t._keras_history
        return [layer.name, node_index[id(layer._inbound_nodes[index])], tensor_index]

    def encode(x):
        if isinstance(x, KerasTensor):
            return {"class_name": "__keras_tensor__", "config": {"shape": list(x.shape), "dtype": x.dtype.name,
                                                                 "keras_history": ref(x)}}
        return serialize_value(x)
    layers = []
    for layer in model.layers:
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = []
        for node in per_layer[layer]:
            if node.is_input:
                continue
            args, kwargs = node.arguments
            entry["inbound_nodes"].append({"args": [nest.map_structure(encode, a) for a in args],
                                           "kwargs": {k: nest.map_structure(encode, v) for k, v in kwargs.items()}})
        layers.append(entry)

    def refs(struct):
        return nest.map_structure(ref, struct) if not isinstance(struct, (list, tuple)) else [ref(t) for t in
                                                                                            nest.flatten(struct)]
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(model._inputs_struct), "output_layers": refs(model._outputs_struct)}


def functional_from_config(cls, config, custom_objects=None):
    """Re-create the layers, then replay their calls as soon as their inputs exist (Keras' algorithm)."""
    created, tensors, pending = {}, {}, []
    for entry in config["layers"]:
        layer = deserialize_keras_object({k: entry[k] for k in ("module", "class_name", "config", "registered_name")
                                          if k in entry}, custom_objects)   # found by Keras 3's rules
        created[entry["name"]] = layer
        if not entry["inbound_nodes"]:     # an InputLayer: node 0 already made its tensor
            tensors[(entry["name"], 0, 0)] = layer.output
        pending.append([entry["name"], list(entry["inbound_nodes"]), 0 if entry["inbound_nodes"] else 1])

    def is_ref(x):
        return isinstance(x, dict) and x.get("class_name") == "__keras_tensor__"

    def ready(node):
        return all(tuple(r) in tensors for r in _refs_in(node))

    def decode(x):
        if is_ref(x):
            return tensors[tuple(x["config"]["keras_history"])]
        if isinstance(x, dict):
            return {k: decode(v) for k, v in x.items()}
        if isinstance(x, list):
            return [decode(v) for v in x]
        return deserialize_value(x)
    progress = True
    while progress and any(p[1] for p in pending):
        progress = False
        for item in pending:
            name, nodes, next_index = item
            while nodes and ready(nodes[0]):
                node = nodes.pop(0)
                args = [decode(a) for a in node["args"]]
                kwargs = {k: decode(v) for k, v in node["kwargs"].items()}
                outputs = created[name](*args, **kwargs)
                for i, t in enumerate(nest.flatten(outputs)):
                    tensors[(name, next_index, i)] = t
                item[2] = next_index = next_index + 1
                progress = True
    if any(p[1] for p in pending):
        raise ValueError("Cannot rebuild the functional model: some layer calls have inputs that no other layer "
                         "produces (is the config complete?).")

    def lookup(refs):
        if refs and isinstance(refs[0], str):
            return tensors[tuple(refs)]
        return [tensors[tuple(r)] for r in refs]
    inputs, outputs = lookup(config["input_layers"]), lookup(config["output_layers"])
    if isinstance(inputs, list) and len(inputs) == 1:
        inputs = inputs[0]
    if isinstance(outputs, list) and len(outputs) == 1:
        outputs = outputs[0]
    model = Functional(inputs, outputs, name=config.get("name"))
    model.trainable = config.get("trainable", True)
    return model


def _refs_in(value):
    if isinstance(value, dict):
        if value.get("class_name") == "__keras_tensor__":
            return [value["config"]["keras_history"]]
        return [r for v in value.values() for r in _refs_in(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs_in(v)]
    return []
