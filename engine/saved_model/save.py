"""``tf.saved_model.save``: write a ``tf.Module`` 's traced functions and variables to a directory.

What is written, and why each part is needed to serve the model without its code:

1. **The graphs.** Every ``tf.function`` of the module has been traced into one
   ``FuncGraph`` per input signature (its ``ConcreteFunction`` s). Each graph is
   written as a GraphDef (``docs/graph_format.md``), pruned to what a call runs:
   the outputs, the stateful ops (assignments must still happen) and the inputs.
2. **The variables.** A traced graph does not hold the variables' values: its
   ``VarHandleOp`` nodes point at live eager ``tf.Variable`` objects, which
   cannot be written to a file. So each such node is rewritten to name the
   variable by its *checkpoint key* (``shared_name="layer/w"``, its attribute
   path in the module), and the values go to a separate checkpoint
   (``variables/variables.npz``), read back by key. Graphs and values are kept
   apart for the same reason as in TF: one graph, many checkpoints (training
   writes new values; the graph does not change).
3. **The signatures.** A server does not know Python argument structures. A
   *signature* is the serving contract: named input tensors in, a dictionary
   of named output tensors out (``{"output_0": ...}`` unless the function
   returned a dict). ``signatures=None`` exports the module's one
   ``tf.function`` with an ``input_signature``, if there is exactly one.
4. **The object tree.** Which attribute held which variable, sub-module or
   function, so ``loaded.layer.w`` and ``loaded.f(x)`` work again after loading.

Differences from TF: the metadata is JSON (``saved_model.json``) instead of a
``saved_model.pb`` protocol buffer and the checkpoint is one ``.npz`` file;
there are no assets; functions that were never traced are saved with no
concrete functions (as in TF), and calling them after loading raises.
"""
import inspect
import json
import os
import zipfile

import numpy as np

from ..tracing.function import ConcreteFunction, Function
from ..tracing.graph_export import export_function_graph
from ..framework.tensor import Tensor
from ..ops.ragged.ragged_tensor import RaggedTensor
from ..framework.tensor_spec import TensorSpec
from ..module import AutoTrackable, flatten_trackables
from ..util import nest
from . import format as fmt

__all__ = ["save", "SaveOptions"]


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted for compatibility; the engine's writer has no options to set."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False,
                 experimental_skip_saver=False, experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.extra_tags = list(extra_tags or [])
        self.experimental_custom_gradients = experimental_custom_gradients


def save(obj, export_dir, signatures=None, options=None):
    """Save ``obj`` (a ``tf.Module``) to ``export_dir``: its traced functions, its variables, its signatures.

    ``signatures``: a ``tf.function`` with an ``input_signature``, a ``ConcreteFunction``, or a dict from
    signature name to either. ``None`` exports the root's single ``tf.function`` with an input signature
    as ``"serving_default"`` (no signature if there are zero or several). Load it back with
    ``tf.saved_model.load(export_dir)``, in any process: the defining code is not needed.
    """
    if not isinstance(obj, AutoTrackable):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj!r} with type {type(obj)}.")
    options = options or SaveOptions()
    keys, variable_docs, values = _variables(obj)
    library = _FunctionLibrary(keys, custom_gradients=options.experimental_custom_gradients)
    tree = _object_tree(obj, keys, library, set())
    signature_docs = {name: library.signature(name, concrete, input_names)
                      for name, (concrete, input_names) in _canonicalize_signatures(obj, signatures).items()}
    doc = {"format": fmt.FORMAT, "version": fmt.VERSION, "tags": [fmt.SERVING] + options.extra_tags,
           "variables": variable_docs, "signatures": signature_docs, "object_graph": tree,
           "functions": library.functions}
    os.makedirs(os.path.join(os.fspath(export_dir), fmt.VARIABLES_DIRECTORY), exist_ok=True)
    _write_checkpoint(fmt.variables_path(export_dir), values)
    _write_text(fmt.saved_model_path(export_dir), _dumps(doc) + "\n")


# --- variables -------------------------------------------------------------------------------------
def _variables(obj):
    """Checkpoint keys (by ``id`` of the variable), the metadata records, and the values to write."""
    keys, docs, values = {}, [], {}
    # every trackable's attributes, Keras layers included (a tf.Module's own walk stops at them, as TF's does)
    for path, variable in flatten_trackables(obj, predicate=lambda x: hasattr(x, "_is_variable"), with_path=True):
        if variable.graph is not None:
            raise ValueError(f"Cannot save variable '{variable.name}': it was created in a tf.Graph (TF1 graph "
                             f"mode) and has no value outside a Session. tf.saved_model.save saves eager "
                             f"variables.")
        key = fmt.checkpoint_key(path)
        keys[id(variable)] = key
        docs.append({"key": key, "name": variable.name, "dtype": variable.dtype.name,
                     "shape": fmt.encode_shape(variable.shape), "trainable": variable.trainable})
        values[key] = np.asarray(variable.numpy())
    return keys, docs, values


def _write_checkpoint(path, values):
    """Write ``{key: array}`` as an ``.npz`` (a zip of ``.npy`` files; ``np.load`` reads it), then rename."""
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as archive:
        for key, array in values.items():
            with archive.open(key + ".npy", "w") as f:
                np.lib.format.write_array(f, np.array(array, order="C"), allow_pickle=False)
    os.replace(tmp, path)


def _write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# --- the object tree --------------------------------------------------------------------------------
# Per-instance caches of bound tf.functions; Keras's compiled step functions (made by fit/evaluate/predict,
# Keras does not export them: they capture metric variables); a layer's recorded constructor arguments
# (for get_config: the same sub-layers are reachable through their real attributes).
_SKIPPED_ATTRIBUTES = frozenset(["_tf_function_instances", "train_function", "test_function", "predict_function",
                                 "_init_arguments"])


def _children(module):
    """``(name, value)`` for a module's attributes and its class's ``tf.function`` methods, sorted by name."""
    found = {}
    for key, value in vars(module).items():
        if key not in module._TF_MODULE_IGNORED_PROPERTIES and key not in _SKIPPED_ATTRIBUTES:
            found[key] = value
    for cls in type(module).__mro__:
        for key, value in vars(cls).items():
            if isinstance(value, Function) and key not in found:
                found[key] = getattr(module, key)   # the method bound to this instance (its own traces)
    return sorted(found.items())


def _object_tree(value, keys, library, visited):
    """A JSON node for ``value``, or ``None`` if it holds nothing a SavedModel stores."""
    if hasattr(value, "_is_variable"):
        return {"kind": "variable", "key": keys[id(value)]}
    if isinstance(value, (Function, ConcreteFunction)):
        return library.function_object(value)
    if isinstance(value, AutoTrackable):
        if id(value) in visited:   # reachable twice (or a cycle): stored once, where first found
            return None
        visited.add(id(value))
        children = {}
        for name, child in _children(value):
            node = _object_tree(child, keys, library, visited)
            if node is not None:
                children[name] = node
        return {"kind": "module", "children": children}
    if isinstance(value, dict) or (isinstance(value, (list, tuple)) and not isinstance(value, str)):
        items = sorted(value.items(), key=lambda kv: str(kv[0])) if isinstance(value, dict) else enumerate(value)
        children = {}
        for name, child in items:
            node = _object_tree(child, keys, library, visited)
            if node is not None:
                children[str(name)] = node
        if children:
            return {"kind": "dict" if isinstance(value, dict) else "list", "children": children}
    return None


# --- functions and signatures -------------------------------------------------------------------------
class _FunctionLibrary:
    """The concrete functions to write, each once, by name (TF's ``FunctionDefLibrary``)."""

    def __init__(self, variable_keys, custom_gradients=True):
        self._keys = variable_keys
        self._custom_gradients = custom_gradients
        self.functions = {}

    def function_object(self, function):
        """The object-tree node of a ``tf.function`` attribute: its traced concrete functions, and how to call."""
        if isinstance(function, ConcreteFunction):
            return {"kind": "function", "name": function.name, "concrete_functions": [self.add(function)],
                    "input_signature": None,
                    "arg_names": [s.name for s in nest.flatten(function.structured_input_signature[0])
                                  if isinstance(s, TensorSpec)]}
        concretes = []
        if function.input_signature is not None:
            concretes.append(function.get_concrete_function())
        for concrete in function._cache.values():   # every trace made so far
            if all(c is not concrete for c in concretes):
                concretes.append(concrete)
        try:
            parameters = inspect.signature(function.python_function).parameters
        except (TypeError, ValueError):
            parameters = {}
        arg_names = list(parameters)
        # Python defaults (plain values only), so a restored call may leave them out, as TF's FunctionSpec allows
        defaults = {n: p.default for n, p in parameters.items() if p.default is not inspect.Parameter.empty
                    and (p.default is None or isinstance(p.default, (bool, int, float, str)))}
        signature = function.input_signature
        return {"kind": "function", "name": function.__name__, "concrete_functions": [self.add(c) for c in concretes],
                "input_signature": None if signature is None else [fmt.encode_spec(s) for s in signature],
                "arg_names": arg_names, "defaults": defaults}

    def add(self, concrete):
        """Export ``concrete`` (once) and return its name in the library."""
        name = concrete.name
        if name in self.functions:
            return name
        graph = concrete.graph
        position = {t._id: i for i, t in enumerate(graph.outputs)}

        def output_leaf(x):
            if isinstance(x, Tensor) and x._id in position:
                return {"output": position[x._id]}
            if isinstance(x, RaggedTensor):   # a composite output: its components' positions, and its spec
                parts = x._type_spec._to_tensor_list(x)
                if all(p._id in position for p in parts):
                    return {"ragged": {"spec": fmt.encode_ragged_spec(x._type_spec),
                                       "outputs": [position[p._id] for p in parts]}}
            return None
        where = f"function {name}"
        gradient, gradient_roots = self._custom_gradient(concrete)
        self.functions[name] = {
            "inputs": [t.name for t in graph.inputs],
            "outputs": [t.name for t in graph.outputs],
            "structured_input_signature": fmt.encode_structure(concrete.structured_input_signature, None,
                                                               f"the arguments of {where}"),
            "structured_outputs": fmt.encode_structure(concrete.structured_outputs, output_leaf,
                                                       f"the outputs of {where}"),
            "captures": [self._key(v, name) for v in concrete.variables],
            "graph_def": json.loads(self._graph_def(concrete, gradient_roots).to_json(pretty=False)),
        }
        if gradient is not None:
            self.functions[name]["gradient"] = gradient
        return name

    def _custom_gradient(self, concrete):
        """``(entry, roots)``: the gradient graph of a function that uses ``tf.custom_gradient`` (TF's
        ``SaveOptions(experimental_custom_gradients=True)``, the default), saved with it so that the
        loaded function's gradient is the custom one; ``(None, [])`` for other functions, whose loaded
        gradient is derived from their ops again.

        The gradient is built into the function's graph (``grad_y`` placeholders per float output, the
        gradients of the inputs and captured variables, the forward tensors it reads), and the entry
        names those tensors.
        """
        graph = concrete.graph
        if not self._custom_gradients or not any(getattr(op, "_custom_backward", None) is not None
                                                 for op in graph.get_operations()):
            return None, []
        info = concrete._gradient_functions()
        entry = {"float_outputs": list(info.float_outputs), "grad_ys": [t.name for t in info.grad_ys],
                 "grads": [None if g is None else g.name for g in info.grads], "saved": [t.name for t in info.saved]}
        return entry, [g.op for g in info.grads if g is not None] + [t.op for t in info.grad_ys]

    def _key(self, variable, function_name):
        key = self._keys.get(id(variable))
        if key is None:
            raise AssertionError(
                f"Tried to export a function which references an 'untracked' resource. TensorFlow objects (e.g. "
                f"tf.Variable) captured by functions must be 'tracked' by assigning them to an attribute of a "
                f"tracked object or assigned to an attribute of the main object directly. See the information "
                f"below:\n\tFunction name = {function_name}\n\tCaptured variable = {variable!r}")
        return key

    def _graph_def(self, concrete, extra_roots=()):
        """The function's graph as a GraphDef, pruned to one call (and ``extra_roots``: a saved custom
        gradient), with eager variables named by key.

        The sub-graphs of its control flow (cond branches, loop bodies) go to the GraphDef's
        function library (``docs/graph_format.md``).
        """
        return export_function_graph(concrete.graph, lambda v: self._key(v, concrete.name), extra_roots)

    def signature(self, name, concrete, input_names):
        """The serving contract of one signature: named inputs, named outputs (tensor names in the graph)."""
        function = self.add(concrete)
        outputs = _normalize_outputs(concrete.structured_outputs, concrete.name, name)
        return {"function": function,
                "inputs": [{"name": n, "dtype": t.dtype.name, "shape": fmt.encode_shape(t.shape), "tensor": t.name}
                           for n, t in zip(input_names, concrete.graph.inputs)],
                "outputs": {key: t.name for key, t in outputs.items()}}


def _canonicalize_signatures(obj, signatures):
    """``{signature name: (ConcreteFunction, input names)}`` from the ``signatures`` argument."""
    if signatures is None:
        found = _default_signature(obj)
        signatures = {} if found is None else {fmt.DEFAULT_SERVING_SIGNATURE_DEF_KEY: found}
    elif not isinstance(signatures, dict):
        signatures = {fmt.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for name, function in signatures.items():
        if not isinstance(name, str):
            raise ValueError(f"Signature names must be strings, got {name!r}.")
        concrete = _signature_function(function)
        if concrete is None:
            raise ValueError(f"Expected a TensorFlow function for which to generate a signature, but got "
                             f"{function!r}. Only `tf.functions` with an input signature or concrete functions "
                             f"can be used as a signature.")
        specs = [s for s in nest.flatten(concrete.structured_input_signature) if isinstance(s, TensorSpec)]
        names = [s.name for s in specs]
        if isinstance(function, Function):   # TF names a signature input after its TensorSpec when it has a name
            names = [s.name or n for s, n in zip(function.input_signature, names)]
        if len(set(names)) != len(names):
            raise ValueError(f"Signature '{name}' has several inputs named alike ({names}); give the TensorSpecs "
                             f"of its input_signature distinct names.")
        _normalize_outputs(concrete.structured_outputs, concrete.name, name)   # checked now, before writing
        out[name] = (concrete, names)
    return out


def _signature_function(function):
    if isinstance(function, Function) and function.input_signature is not None:
        return function.get_concrete_function()
    if isinstance(function, ConcreteFunction):
        return function
    return None


def _default_signature(obj):
    """TF's rule: the root's ``_default_save_signature``, else its one function with an input signature."""
    candidates = []
    for name, value in _children(obj):
        if not isinstance(value, (Function, ConcreteFunction)):
            continue
        if name == "_default_save_signature":
            return value
        concrete = _signature_function(value)
        if concrete is not None and _valid_signature(concrete):
            candidates.append(value)
    return candidates[0] if len(candidates) == 1 else None


def _valid_signature(concrete):
    if not all(isinstance(s, TensorSpec) for s in nest.flatten(concrete.structured_input_signature)):
        return False
    try:
        _normalize_outputs(concrete.structured_outputs, concrete.name, "")
    except ValueError:
        return False
    return True


def _normalize_outputs(outputs, function_name, signature_key):
    """A signature returns a dict of tensors: one tensor or a sequence becomes ``{"output_0": ..., ...}``."""
    if not isinstance(outputs, dict):
        if hasattr(outputs, "_asdict"):
            outputs = outputs._asdict()
        else:
            if not isinstance(outputs, (list, tuple)):
                outputs = [outputs]
            outputs = {f"output_{i}": t for i, t in enumerate(outputs)}
    for key, value in outputs.items():
        if not isinstance(key, str):
            raise ValueError(f"Got a dictionary with a non-string key {key!r} in the output of the function "
                             f"{function_name} used to generate the SavedModel signature {signature_key!r}.")
        if not isinstance(value, Tensor):
            raise ValueError(f"Got a non-Tensor value {value!r} for key {key!r} in the output of the function "
                             f"{function_name} used to generate the SavedModel signature {signature_key!r}. "
                             f"Outputs for functions used as signatures must be a single Tensor, a sequence of "
                             f"Tensors, or a dictionary from string to Tensor.")
    return outputs


# --- writing JSON --------------------------------------------------------------------------------------------
def _dumps(value, indent=0):
    """Indented JSON, except that short values and whole GraphDef nodes stay on one line (readable, diff-able)."""
    flat = json.dumps(value, allow_nan=False)
    if len(flat) <= 100 or not isinstance(value, (dict, list)) or (isinstance(value, dict) and "op" in value):
        return flat
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, list):
        return "[\n" + ",\n".join(inner + _dumps(v, indent + 2) for v in value) + "\n" + pad + "]"
    return "{\n" + ",\n".join(f"{inner}{json.dumps(k)}: {_dumps(v, indent + 2)}" for k, v in value.items()) + \
        "\n" + pad + "}"
