"""``tf.saved_model.load``: rebuild a saved module's functions from files, without its Python code.

Loading reverses ``save.py`` in four steps:

1. **Variables.** Read ``variables/variables.npz`` and create one eager
   ``tf.Variable`` per saved variable (same name, dtype, shape, trainable).
2. **Graphs.** For each saved concrete function, rebuild its graph with
   ``import_graph_def`` into a fresh ``FuncGraph``. Only the op *types* are
   needed (the registry knows them), never the code that traced the graph.
   Each ``VarHandleOp`` named ``shared_name="layer/w"`` is re-linked to the
   restored variable with that key: the graph *captures* it, exactly as a
   freshly traced function captures the variables it reads. So a restored
   function is an ordinary ``ConcreteFunction``: it runs through the same
   compiled plans, assignments update the restored variables, and a
   ``GradientTape`` can differentiate through it.
3. **Signatures.** ``loaded.signatures["serving_default"](x=...)`` takes keyword
   tensors and returns a dict of tensors: the contract a model server uses.
4. **Objects.** The saved attribute tree comes back as plain objects:
   ``loaded.layer.w`` is a restored variable, ``loaded.f(x)`` calls the
   restored ``tf.function`` (choosing among its traced concrete functions by
   the arguments' dtypes and shapes; it cannot trace new ones: there is no
   Python function to trace).

Differences from TF: the restored objects also have ``variables`` and
``trainable_variables`` (TF's restored objects do not), and signature inputs
are checked for shape compatibility before running (TF only checks dtypes,
and a wrong shape fails inside the graph).
"""
import json
import os

import numpy as np

from ..tracing.function import ConcreteFunction
from ..ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..tracing.graph_export import import_function_graph
from ..framework import dtypes as _dtypes
from ..framework.errors import NotFoundError
from ..framework.executor import compile_plan
from ..framework.graph_io import GraphDef
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_spec import TensorSpec
from ..variables import Variable
from . import format as fmt

__all__ = ["load", "LoadOptions", "contains_saved_model"]


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted for compatibility; the engine's loader has no options to set."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy


def contains_saved_model(export_dir):
    """True if ``export_dir`` holds a SavedModel (its ``saved_model.json``)."""
    return os.path.isfile(fmt.saved_model_path(export_dir))


def load(export_dir, tags=None, options=None):
    """Load the SavedModel in ``export_dir``; returns an object with its attributes, functions and signatures."""
    doc = _read_document(export_dir)
    _check_tags(tags, doc.get("tags", [fmt.SERVING]), export_dir)
    variables = _restore_variables(export_dir, doc["variables"])
    functions = {name: _restore_function(name, entry, variables) for name, entry in doc["functions"].items()}
    order = {v._id: i for i, v in enumerate(variables.values())}
    root = _build(doc["object_graph"], variables, functions, order)
    if not isinstance(root, _UserObject):
        raise ValueError(f"Bad SavedModel at {export_dir}: the root of the object graph must be a module.")
    root.signatures = _SignatureMap({name: _restore_signature(name, entry, doc["functions"], variables)
                                     for name, entry in doc["signatures"].items()})
    return root


# --- reading ------------------------------------------------------------------------------------------
def _read_document(export_dir):
    path = fmt.saved_model_path(export_dir)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: "
                      f"{os.fspath(export_dir)}/{{{fmt.SAVED_MODEL_FILENAME_JSON}}}")
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as error:
            raise ValueError(f"Not a SavedModel: {path} is not valid JSON ({error}).") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt.FORMAT:
        raise ValueError(f"Not a SavedModel: {path} has no \"format\": \"{fmt.FORMAT}\". Write SavedModels with "
                         f"tf.saved_model.save.")
    if doc.get("version") != fmt.VERSION:
        raise ValueError(f"SavedModel format version {doc.get('version')} at {path} cannot be read by this engine, "
                         f"which reads version {fmt.VERSION}.")
    return doc


def _check_tags(tags, saved, export_dir):
    if tags is None:
        return
    tags = [tags] if isinstance(tags, str) else list(tags)
    if set(tags) != set(saved):
        raise ValueError(f"Got an incompatible argument to `tags`: {tags}. The SavedModel at {export_dir} has one "
                         f"MetaGraph with tags {saved}. You may omit the argument, pass 'None', or pass matching "
                         f"tags.")


def _restore_variables(export_dir, records):
    """``{checkpoint key: tf.Variable}``, in saved order, with the checkpoint's values."""
    path = fmt.variables_path(export_dir)
    if not records:
        return {}
    if not os.path.isfile(path):
        raise NotFoundError(None, None, f"Failed to find the checkpoint of the SavedModel: {path} does not exist.")
    restored = {}
    with np.load(path, allow_pickle=False) as checkpoint:
        for record in records:
            key = record["key"]
            if key not in checkpoint:
                raise NotFoundError(None, None, f"Key {key} not found in checkpoint {path}.")
            dtype = _dtypes.as_dtype(record["dtype"])
            value = checkpoint[key]
            restored[key] = Variable(value, trainable=record["trainable"], name=record["name"], dtype=dtype,
                                     shape=fmt.decode_shape(record["shape"]))
    return restored


# --- functions --------------------------------------------------------------------------------------------
def _import_graph(name, entry, variables):
    """A FuncGraph rebuilt from the function's GraphDef, its variable handles linked to ``variables``."""
    graph_def = GraphDef.from_json(json.dumps(entry["graph_def"]))
    gradient = entry.get("gradient")
    gradient_names = [] if gradient is None else \
        gradient["grad_ys"] + [g for g in gradient["grads"] if g is not None] + gradient["saved"]

    def missing(node, key):
        return ValueError(f"Bad SavedModel: node '{node.name}' of function {name} reads the variable '{key}', which "
                          f"is not in the checkpoint.")
    graph, gradient_tensors = import_function_graph(graph_def, variables, entry["inputs"], entry["outputs"], name,
                                                    missing, extra_names=gradient_names)
    if gradient is not None:
        graph._saved_gradient = dict(zip(gradient_names, gradient_tensors))
    return graph


def _restore_function(name, entry, variables):
    graph = _import_graph(name, entry, variables)

    def output(kind, index):
        if kind == "ragged":
            spec = fmt.decode_ragged_spec(index["spec"])
            return spec._from_tensor_list([graph.outputs[i] for i in index["outputs"]])
        if kind != "output":
            raise ValueError(f"Bad structured value in function {name}: unknown kind {kind!r}.")
        return graph.outputs[index]
    graph.structured_outputs = fmt.decode_structure(entry["structured_outputs"], output)
    signature = fmt.decode_structure(entry["structured_input_signature"])
    concrete = ConcreteFunction(graph, (tuple(signature[0]), dict(signature[1])), graph.structured_outputs, name)
    if "gradient" in entry:
        concrete._gradient = _SavedGradient(entry["gradient"], graph._saved_gradient)
    return concrete


class _SavedGradient:
    """A function's saved gradient graph (a ``tf.custom_gradient`` inside it), in the loaded graph: what
    ``ConcreteFunction`` runs for its backward pass instead of deriving one from the ops again."""

    def __init__(self, entry, tensors):
        self.float_outputs = list(entry["float_outputs"])
        self.grad_ys = [tensors[n] for n in entry["grad_ys"]]
        self.grads = [None if n is None else tensors[n] for n in entry["grads"]]
        self.saved = [tensors[n] for n in entry["saved"]]
        self.plan = compile_plan([g for g in self.grads if g is not None], [], self.saved + self.grad_ys)


class RestoredFunction:
    """A loaded ``tf.function``: calls the saved concrete function that matches the arguments."""

    def __init__(self, name, concrete_functions, input_signature, arg_names, defaults=None):
        self.__name__ = name
        self._concrete_functions = list(concrete_functions)
        self._input_signature = input_signature
        self._arg_names = list(arg_names)
        self._defaults = dict(defaults or {})

    @property
    def input_signature(self):
        return None if self._input_signature is None else tuple(self._input_signature)

    @property
    def concrete_functions(self):
        """The saved concrete functions (an engine extension: TF keeps them private)."""
        return list(self._concrete_functions)

    def __call__(self, *args, **kwargs):
        concrete, flat = self._find(args, kwargs)
        return concrete._call_flat(flat)

    def get_concrete_function(self, *args, **kwargs):
        """The saved concrete function for these arguments (tensors or TensorSpecs); none is traced."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        return self._find(args, kwargs)[0]

    def _find(self, args, kwargs):
        if not self._concrete_functions:
            raise ValueError("Found zero restored functions for caller function.")
        bound = self._bind(args, kwargs)
        if self._input_signature is not None:
            self._check_signature(bound[0], bound[1])
        for concrete in self._concrete_functions:
            for call_args, call_kwargs in ((args, kwargs), bound):
                flat = _match(concrete.structured_input_signature, call_args, call_kwargs)
                if flat is not None:
                    return concrete, flat
        options = "\n\n".join(f"Option {i}:\n{_describe(*c.structured_input_signature)}"
                              for i, c in enumerate(self._concrete_functions, 1))
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
                         f"{_describe(args, kwargs)}\n\n Expected these arguments to match one of the following "
                         f"{len(self._concrete_functions)} option(s):\n\n{options}")

    def _bind(self, args, kwargs):
        """Keyword arguments that name positional parameters moved into place, and saved Python defaults
        filled in (as Python binds them, and as tf.function keyed the traces)."""
        args, kwargs = list(args), dict(kwargs)
        for name in self._arg_names[len(args):]:
            if name in kwargs:
                args.append(kwargs.pop(name))
            elif name in self._defaults:
                args.append(self._defaults[name])
            else:
                break
        return tuple(args), kwargs

    def _check_signature(self, args, kwargs):
        specs = self._input_signature
        problem = None
        if kwargs:
            problem = f"got an unexpected keyword argument '{sorted(kwargs)[0]}'"
        elif len(args) > len(specs):
            problem = "too many positional arguments"
        elif len(args) < len(specs):
            missing = self._arg_names[len(args)] if len(args) < len(self._arg_names) else f"#{len(args)}"
            problem = f"missing a required argument: '{missing}'"
        else:
            for value, spec in zip(args, specs):
                got = value if isinstance(value, TensorSpec) else _as_spec(value, spec.dtype)
                if got is None or not TensorSpec(spec.shape, spec.dtype).is_compatible_with(got):
                    problem = f"Can not cast {got!r} to {TensorSpec(spec.shape, spec.dtype)!r}"
                    break
        if problem is not None:
            described = ", ".join(f"{n}: {s!r}" for n, s in zip(self._arg_names, specs))
            raise TypeError(f"Binding inputs to tf.function failed due to `{problem}`. Received args: {args} and "
                            f"kwargs: {kwargs} for signature: ({described}).")

    def __repr__(self):
        return f"<RestoredFunction {self.__name__} ({len(self._concrete_functions)} concrete function(s))>"


def _as_spec(value, dtype_hint):
    if isinstance(value, TensorSpec):
        return value
    try:
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=dtype_hint)
    except (TypeError, ValueError):
        return None
    return TensorSpec(t.shape, t.dtype)


def _match(signature, args, kwargs):
    """The flat input tensors if ``(args, kwargs)`` fits ``signature`` (structure, dtypes, shapes), else None."""
    flat = []

    def walk(spec, value):
        if isinstance(spec, TensorSpec):
            if isinstance(value, TensorSpec):
                ok = spec.dtype == value.dtype and spec.shape.is_compatible_with(value.shape)
                flat.append(None)
                return ok
            try:
                t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=spec.dtype)
            except (TypeError, ValueError):
                return False
            flat.append(t)
            return t.dtype == spec.dtype and spec.shape.is_compatible_with(t.shape)
        if isinstance(spec, RaggedTensorSpec):   # a ragged argument: its component tensors, in order
            if not isinstance(value, RaggedTensor) or not spec.is_compatible_with(value._type_spec):
                return False
            flat.extend(spec._to_tensor_list(value))
            return True
        if isinstance(spec, dict):
            return isinstance(value, dict) and set(value) == set(spec) and \
                all(walk(spec[k], value[k]) for k in sorted(spec))   # nest.flatten's order: sorted keys
        if isinstance(spec, (list, tuple)):
            return isinstance(value, (list, tuple)) and len(value) == len(spec) and \
                all(walk(s, v) for s, v in zip(spec, value))
        return type(value) is type(spec) and value == spec     # a Python value the function was traced with

    spec_args, spec_kwargs = signature
    if walk(tuple(spec_args), tuple(args)) and walk(dict(spec_kwargs), dict(kwargs)):
        return flat
    return None


def _describe(args, kwargs):
    def show(x):
        return repr(TensorSpec(x.shape, x.dtype)) if isinstance(x, Tensor) else repr(x)
    lines = [f"  Positional arguments ({len(args)} total):"] + [f"    * {show(a)}" for a in args]
    return "\n".join(lines + [f"  Keyword arguments: {kwargs}"])


# --- signatures ----------------------------------------------------------------------------------------------
class SignatureFunction(ConcreteFunction):
    """A loaded signature: keyword tensors in, a dict of named tensors out (the serving contract).

    It has its own copy of the function's graph whose inputs are ordered by
    keyword and outputs by output key, so the ConcreteFunction machinery
    (dtype/shape checks, plans, gradients) applies as is.
    """

    def __init__(self, graph, input_specs, output_tensors, name):
        super().__init__(graph, ((), dict(input_specs)), dict(output_tensors), name)
        self._keywords = sorted(input_specs)
        self._specs = dict(input_specs)

    def __call__(self, *args, **kwargs):
        if args:
            if len(args) == 1 and len(self._keywords) == 1 and not kwargs:   # TF accepts this one case
                kwargs = {self._keywords[0]: args[0]}
            else:
                self._binding_error("too many positional arguments", args, kwargs)
        for key in self._keywords:
            if key not in kwargs:
                self._binding_error(f"missing a required argument: '{key}'", args, kwargs)
        for key in kwargs:
            if key not in self._specs:
                self._binding_error(f"got an unexpected keyword argument '{key}'", args, kwargs)
        tensors = {k: v if isinstance(v, Tensor) else convert_to_tensor(v, dtype_hint=self._specs[k].dtype)
                   for k, v in kwargs.items()}
        return super().__call__(**tensors)

    def _binding_error(self, problem, args, kwargs):
        raise TypeError(f"Binding inputs to tf.function failed due to `{problem}`. Received args: {args} and "
                        f"kwargs: {kwargs} for signature: {self._signature_text()}.")

    def _signature_text(self):
        inputs = ", ".join(f"{k}: {self._specs[k]!r}" for k in self._keywords)
        outputs = ", ".join(f"[{k!r}, {TensorSpec(t.shape, t.dtype, k)!r}]"
                            for k, t in self.structured_outputs.items())
        return f"({'*, ' if inputs else ''}{inputs}) -> Dict[{outputs}]"

    def __repr__(self):
        return f"<ConcreteFunction {self._signature_text()} at {hex(id(self)).upper().replace('0X', '0x')}>"


def _restore_signature(name, entry, functions, variables):
    """A SignatureFunction over a fresh import of the signature's function graph."""
    function = functions[entry["function"]]
    graph = _import_graph(f"__inference_signature_wrapper_{name}", function, variables)
    by_name = {t.name: t for t in list(graph.inputs) + list(graph.outputs)}
    specs = {i["name"]: TensorSpec(fmt.decode_shape(i["shape"]), _dtypes.as_dtype(i["dtype"]), i["name"])
             for i in entry["inputs"]}
    placeholders = {i["name"]: by_name[i["tensor"]] for i in entry["inputs"]}
    outputs = {key: by_name[tensor] for key, tensor in entry["outputs"].items()}
    graph.inputs = [placeholders[k] for k in sorted(placeholders)]     # keyword order (how kwargs flatten)
    graph.outputs = [outputs[k] for k in sorted(outputs)]              # key order (how the dict is packed)
    graph.structured_outputs = outputs
    return SignatureFunction(graph, specs, outputs, graph.name)


class _SignatureMap(dict):
    """``loaded.signatures``: signature name -> SignatureFunction (a missing name raises ``KeyError``)."""

    def __repr__(self):
        return f"_SignatureMap({dict.__repr__(self)})"


# --- the object tree ----------------------------------------------------------------------------------------
class _UserObject:
    """A restored module: its saved attributes (variables, sub-modules, functions, lists, dicts)."""

    def __init__(self):
        self._restored_variables = []

    @property
    def variables(self):
        """The restored variables under this object, in saved order (an engine extension)."""
        return tuple(self._restored_variables)

    @property
    def trainable_variables(self):
        return tuple(v for v in self._restored_variables if v.trainable)

    @property
    def non_trainable_variables(self):
        return tuple(v for v in self._restored_variables if not v.trainable)

    def __call__(self, *args, **kwargs):
        """``loaded(x)``, when the module's ``__call__`` was a ``tf.function`` (an attribute alone cannot do it)."""
        function = self.__dict__.get("__call__")
        if function is None:
            raise TypeError("'_UserObject' object is not callable")
        return function(*args, **kwargs)

    def __repr__(self):
        return f"<engine.saved_model._UserObject object at {hex(id(self))}>"


def _build(node, variables, functions, order, found=None):
    """The Python object for one node of the saved object tree; collects the variables found under it."""
    kind = node["kind"]
    if kind == "variable":
        variable = variables[node["key"]]
        if found is not None:
            found.append(variable)
        return variable
    if kind == "function":
        signature = node.get("input_signature")
        return RestoredFunction(node.get("name", "function"), [functions[n] for n in node["concrete_functions"]],
                                None if signature is None else [fmt.decode_spec(s) for s in signature],
                                node.get("arg_names", []), node.get("defaults", {}))
    if kind == "module":
        obj = _UserObject()
        mine = []
        for name, child in node["children"].items():
            setattr(obj, name, _build(child, variables, functions, order, mine))
        unique = {v._id: v for v in mine}
        obj._restored_variables = sorted(unique.values(), key=lambda v: order[v._id])
        if found is not None:
            found.extend(obj._restored_variables)
        return obj
    if kind == "list":
        items = [None] * (1 + max((int(i) for i in node["children"]), default=-1))   # None where nothing was saved
        for index, child in node["children"].items():
            items[int(index)] = _build(child, variables, functions, order, found)
        return items
    if kind == "dict":
        return {name: _build(child, variables, functions, order, found) for name, child in node["children"].items()}
    raise ValueError(f"Bad SavedModel: unknown object kind {kind!r}.")
