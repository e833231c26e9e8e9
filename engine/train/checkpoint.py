"""``tf.train.Checkpoint``: save and restore the *objects* of a program, not a list of variables.

A checkpoint stores an **object graph**. Its root is the ``Checkpoint``; its
edges are named attributes (``model``, ``optimizer``, ``layers``, ``0``...);
its leaves are variables, which carry values. Saving walks the graph from the
root, breadth first, children in name order; each object becomes one node,
however many paths lead to it (a model's kernel is reachable both as
``model/.../kernel`` and as ``optimizer/_trainable_variables/0``: one node,
two edges). Restoring walks the *new* program's objects and the saved graph
side by side from the two roots, following edges of the same name, and gives
each variable it reaches the value of the node it reached. So what matters is
the structure of the program (attribute names), not variable names or creation
order: the point of TF's object-based checkpoints.

What is tracked: ``tf.Variable``; dataset iterators (``iter(dataset)``: their position, under TF's key
``.../.ATTRIBUTES/ITERATOR_STATE``; a restored iterator continues where the saved one was, see
``engine/data/iterator_ops.py`` for how); ``tf.Module`` (and so every Keras layer and
model) through its attributes, descending into lists, tuples and dicts; Keras
optimizers (``iterations``, ``learning_rate``, slot variables); nested
``Checkpoint`` objects. Other attribute values are ignored.

Files (a simple format of the engine's own, **not** TF's tensor-bundle format:
TF cannot read these files and the engine cannot read TF's)::

    <prefix>.index                  JSON: {"format": "engine-checkpoint-v1", "nodes": [...]}
    <prefix>.data-00000-of-00001    an .npz archive: one array per variable, keyed by its checkpoint key
    <dir>/checkpoint                TF's text "CheckpointState": the latest checkpoints of a directory

Node 0 is the root. A node is ``{"children": [[name, node], ...]}``, plus, for a
variable, ``{"key": ..., "dtype": ..., "shape": [...]}``. Checkpoint keys are
TF's: the first path to the variable and ``/.ATTRIBUTES/VARIABLE_VALUE``
(``model/w/.ATTRIBUTES/VARIABLE_VALUE``). The file names and the ``checkpoint``
file are TF's, so ``save`` produces ``prefix-1``, ``prefix-2``... exactly as TF does.

Deferred restoration: when a restored object does not have a saved child yet
(a Keras optimizer whose slot variables are created on its first
``apply_gradients``, a Keras layer whose weights are created on its first
call), and the object is an unbuilt Keras object (``built`` False, a ``build``
method), the status waits: right after that object's ``build`` runs, the new
variables receive their values. (The engine does this by wrapping the object's
``build`` once, on the instance.) A variable assigned later to a plain
``tf.Module`` attribute is not restored (TF would).
"""
import collections
import json
import os

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.func_graph import init_scope
from ..framework.tensor import convert_to_tensor
from ..keras.optimizers.optimizer import Optimizer
from ..module import AutoTrackable
from ..variables import Variable
from .checkpoint_management import DATA_SUFFIX, INDEX_SUFFIX, latest_checkpoint, update_checkpoint_state

__all__ = ["Checkpoint", "CheckpointLoadStatus", "InitializationOnlyStatus", "list_variables", "load_variable"]

FORMAT = "engine-checkpoint-v1"
_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_ITERATOR_SUFFIX = "/.ATTRIBUTES/ITERATOR_STATE"   # TF's key of an iterator's saved state


# --------------------------------------------------------------------------------------
# The object graph
# --------------------------------------------------------------------------------------
def _is_variable(x):
    return hasattr(x, "_is_variable")


def _is_object(x):
    """Objects that are nodes with children: trackables (``tf.Module`` s, Keras layers), Keras optimizers,
    checkpoints."""
    return isinstance(x, (AutoTrackable, Checkpoint, Optimizer))


def _is_iterator(x):
    """A dataset iterator (``iter(dataset)``): a leaf whose saved value is its position."""
    return callable(getattr(x, "_checkpoint_position", None)) and not isinstance(x, type)


def _is_trackable(x):
    return _is_variable(x) or _is_object(x) or _is_iterator(x)


def _holds_trackables(value, depth=0):
    if _is_trackable(value):
        return True
    if depth > 20:
        return False
    if isinstance(value, dict):
        return any(_holds_trackables(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_trackables(v, depth + 1) for v in value)
    return False


def _children(obj):
    """``[(name, child), ...]``: the edges out of one object, in a fixed order."""
    if _is_variable(obj) or _is_iterator(obj):
        return []
    if isinstance(obj, Checkpoint):
        return obj._checkpoint_children()
    if isinstance(obj, dict):
        items = [(str(k), obj[k]) for k in sorted(obj, key=str)]
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    else:
        ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
        attrs = vars(obj)
        items = [(k, attrs[k]) for k in sorted(attrs) if k not in ignored]
    return [(name, value) for name, value in items if _holds_trackables(value)]


def _walk(root):
    """Breadth-first over the object graph: ``(objects, paths, edges)``, node 0 being ``root``."""
    objects, paths, edges = [root], [()], [[]]
    index = {id(root): 0}
    queue = collections.deque([0])
    while queue:
        node = queue.popleft()
        for name, child in _children(objects[node]):
            child_node = index.get(id(child))
            if child_node is None:
                child_node = index[id(child)] = len(objects)
                objects.append(child)
                paths.append(paths[node] + (name,))
                edges.append([])
                queue.append(child_node)
            edges[node].append([name, child_node])
    return objects, paths, edges


def _key(path, suffix=None):
    return "/".join(p.replace("%", "%25").replace("/", "%2F") for p in path) + (suffix or _VALUE_SUFFIX)


def _pretty(path):
    return ".".join(("(root)",) + tuple(path))


def _tf_dtype_name(dtype):
    """TF's C++ names, as its restore errors print them (float32 -> float)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


# --------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------
def _save(root, path):
    objects, paths, edges = _walk(root)
    nodes, arrays = [], {}
    for obj, obj_path, children in zip(objects, paths, edges):
        node = {"children": children}
        if _is_variable(obj):
            value = np.asarray(obj.numpy())
            key = _key(obj_path)
            arrays[key] = value
            node.update(key=key, dtype=obj.dtype.name, shape=list(value.shape))
        elif _is_iterator(obj):
            key = _key(obj_path, _ITERATOR_SUFFIX)
            arrays[key] = np.asarray(obj._checkpoint_position(), np.int64)
            node.update(key=key, iterator=True, dtype="int64", shape=[])
        nodes.append(node)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path + DATA_SUFFIX + ".tmp", "wb") as f:
        np.savez(f, **arrays)
    os.replace(path + DATA_SUFFIX + ".tmp", path + DATA_SUFFIX)
    with open(path + INDEX_SUFFIX + ".tmp", "w") as f:
        json.dump({"format": FORMAT, "nodes": nodes}, f)
    os.replace(path + INDEX_SUFFIX + ".tmp", path + INDEX_SUFFIX)
    return path


def _load(path):
    """``(nodes, arrays)`` of the checkpoint at ``path`` (a prefix such as ``dir/ckpt-3``)."""
    path = os.fspath(path)
    if not os.path.exists(path + INDEX_SUFFIX) or not os.path.exists(path + DATA_SUFFIX):
        raise NotFoundError(None, None, f"Error when restoring from checkpoint or SavedModel at {path}: "
                                        f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                        f"files for {path}\nPlease double-check that the path is correct. You may "
                                        f"be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")
    try:
        with open(path + INDEX_SUFFIX) as f:
            index = json.load(f)
        if index.get("format") != FORMAT:
            raise ValueError(index.get("format"))
    except (ValueError, UnicodeDecodeError, AttributeError):
        raise InvalidArgumentError(None, None, f"{path}{INDEX_SUFFIX} is not an engine checkpoint index (format "
                                               f"{FORMAT!r}). The engine cannot read TensorFlow's tensor-bundle "
                                               f"checkpoints.") from None
    with np.load(path + DATA_SUFFIX, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return index["nodes"], arrays


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def list_variables(ckpt_dir_or_file):
    """``[(key, shape), ...]`` of the variables in a checkpoint (a prefix, or a directory: its latest)."""
    nodes, _ = _load(_resolve(ckpt_dir_or_file))
    # as TF, the object graph itself is listed too, as a scalar (string) entry
    return sorted([(OBJECT_GRAPH_KEY, [])] + [(n["key"], list(n["shape"])) for n in nodes if "key" in n])


def load_variable(ckpt_dir_or_file, name):
    """The saved value (a NumPy array) of the variable with checkpoint key ``name``.

    ``_CHECKPOINTABLE_OBJECT_GRAPH`` is the object graph, as bytes (deliberate difference: TF's is a
    serialized ``TrackableObjectGraph`` protocol buffer, the engine's JSON)."""
    nodes, arrays = _load(_resolve(ckpt_dir_or_file))
    if name == OBJECT_GRAPH_KEY:
        return json.dumps(nodes).encode()
    if name not in arrays and name + _VALUE_SUFFIX in arrays:
        name = name + _VALUE_SUFFIX
    if name not in arrays:
        raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
    return arrays[name]


# --------------------------------------------------------------------------------------
# Restoring
# --------------------------------------------------------------------------------------
def _assign(variable, value, key):
    saved_dtype = _dtypes.as_dtype(value.dtype)
    if saved_dtype != variable.dtype:
        raise InvalidArgumentError(None, None, f"tensor_name = {key}; expected dtype "
                                               f"{_tf_dtype_name(variable.dtype)} does not equal original dtype "
                                               f"{_tf_dtype_name(saved_dtype)} [Op:RestoreV2]")
    if not variable.shape.is_compatible_with(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to restore "
                         f"variable with shape {variable.shape} and name {variable.name}.")
    tensor = convert_to_tensor(value, dtype=variable.dtype)
    if ctx.graph is not None:  # restoring while a tf.function is traced (a deferred build): assign eagerly
        with init_scope():
            variable.assign(tensor)
    else:
        variable.assign(tensor)


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: which saved values found objects, and which did not."""

    def __init__(self, checkpoint, save_path, nodes, arrays):
        self._checkpoint = checkpoint
        self._save_path = save_path
        self._nodes = nodes
        self._arrays = arrays
        self._node_to_object = {}   # node id -> the Python object it was matched with
        self._object_ids = set()    # ids of matched Python objects
        self._paths = self._saved_paths()

    def _saved_paths(self):
        paths = {0: ()}
        queue = collections.deque([0])
        while queue:
            node = queue.popleft()
            for name, child in self._nodes[node]["children"]:
                if child not in paths:
                    paths[child] = paths[node] + (name,)
                    queue.append(child)
        return paths

    def _match(self, obj, node):
        """Walk ``obj``'s objects and the saved graph from ``node`` together; restore every variable reached."""
        queue = collections.deque([(obj, node, None)])
        waiting = {}
        while queue:
            obj, node, owner = queue.popleft()
            if node in self._node_to_object or id(obj) in self._object_ids:
                continue
            saved = self._nodes[node]
            if _is_iterator(obj) != bool(saved.get("iterator")) or \
                    _is_variable(obj) != ("key" in saved and not saved.get("iterator")):
                continue  # a variable where the checkpoint has an object (or the reverse): no match
            self._node_to_object[node] = obj
            self._object_ids.add(id(obj))
            if saved.get("iterator"):
                obj._restore_position(self._arrays[saved["key"]])
                continue
            if "key" in saved:
                _assign(obj, self._arrays[saved["key"]], saved["key"])
                continue
            if getattr(obj, "built", True) is False and callable(getattr(obj, "build", None)):
                owner = (obj, node)   # an unbuilt Keras object: its missing children may appear at build
            children = dict(_children(obj))
            for name, child_node in saved["children"]:
                child = children.get(name)
                if child is not None:
                    queue.append((child, child_node, owner))
                elif owner is not None and child_node not in self._node_to_object:
                    waiting[id(owner[0])] = owner
        for owner_obj, owner_node in waiting.values():
            self._defer(owner_obj, owner_node)

    def _defer(self, obj, node):
        """Restore ``obj``'s missing children right after its ``build`` (wrapped once, on the instance)."""
        if "build" in vars(obj):
            return  # already waiting
        original = obj.build
        status = self

        def build(*args, **kwargs):
            result = original(*args, **kwargs)
            if vars(obj).get("build") is build:
                object.__delattr__(obj, "build")
            status._node_to_object.pop(node, None)
            status._object_ids.discard(id(obj))
            status._match(obj, node)
            return result
        object.__setattr__(obj, "build", build)

    # --- the checks ----------------------------------------------------------------------
    def assert_consumed(self):
        """Every saved value found its object, and every variable of the program got a value."""
        for node_id, node in enumerate(self._nodes):
            if "key" in node and node_id not in self._node_to_object:
                raise AssertionError(f"Unresolved object in checkpoint {_pretty(self._paths.get(node_id, ()))}: "
                                     f"attributes {{ name: \"VARIABLE_VALUE\" checkpoint_key: \"{node['key']}\" }}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        """Every variable reachable from the checkpoint's root got a value (unused saved values are fine)."""
        objects, _, _ = _walk(self._checkpoint)
        unmatched = [o for o in objects if _is_variable(o) and id(o) not in self._object_ids]
        if unmatched:
            n, shown = len(unmatched), min(10, len(unmatched))
            raise AssertionError(f"Found {n} Python objects that were not bound to checkpointed values, likely due "
                                 f"to changes in the Python program. Showing {shown} of {n} unmatched objects: "
                                 f"{unmatched[:shown]}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root (and ``save_counter``) was restored."""
        counter = self._checkpoint.__dict__.get("_save_counter")
        matched = [o for o in self._node_to_object.values() if o is not self._checkpoint and o is not counter]
        if not matched:
            objects, _, _ = _walk(self._checkpoint)
            raise AssertionError(f"Nothing except the root object matched a checkpointed value. Typically this "
                                 f"means that the checkpoint does not match the Python program. The following "
                                 f"objects have no matching checkpointed value: "
                                 f"{[o for o in objects if _is_variable(o)]}")
        return self

    def expect_partial(self):
        """Silence warnings about unused values (the engine prints none); returns the status."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores happen immediately."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: eager restores happen immediately."""


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing was restored; variables keep their initial values."""

    def _nothing(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self):
        self._nothing()

    def assert_existing_objects_matched(self):
        self._nothing()

    def assert_nontrivial_match(self):
        self._nothing()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        pass

    def initialize_or_restore(self, session=None):
        pass


# --------------------------------------------------------------------------------------
# tf.train.Checkpoint
# --------------------------------------------------------------------------------------
def _not_trackable(name, value):
    return ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                      f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is part "
                      f"of the TensorFlow Python API and manages state), please open an issue.")


class Checkpoint:
    """Groups trackable objects, saving and restoring them together.

    >>> ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    >>> path = ckpt.save("/tmp/training/ckpt")     # '/tmp/training/ckpt-1'
    >>> ckpt.restore(tf.train.latest_checkpoint("/tmp/training")).assert_consumed()

    Keyword arguments (and attributes set later) name the edges from the root.
    ``save_counter`` (an int64 variable, created on the first ``save`` or
    ``restore``) numbers the checkpoints and is saved with them.
    """

    def __init__(self, root=None, **kwargs):
        if root is not None:
            if not _is_object(root):
                raise _not_trackable("root", root)
        for name, value in kwargs.items():
            if not (_is_trackable(value) or (isinstance(value, (list, tuple, dict)) and _holds_trackables(value))):
                raise _not_trackable(name, value)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_save_counter", None)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def _checkpoint_children(self):
        children = _children(self._root) if self._root is not None else []
        attrs = vars(self)
        children += [(k, attrs[k]) for k in sorted(attrs) if not k.startswith("_") and _holds_trackables(attrs[k])]
        if self._save_counter is not None:
            children.append(("save_counter", self._save_counter))
        return children

    @property
    def save_counter(self):
        """How many times ``save`` ran (an int64 variable; created on first use)."""
        self._maybe_create_save_counter()
        return self._save_counter

    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            with init_scope():
                counter = Variable(np.int64(0), trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)

    # --- saving ---------------------------------------------------------------------------
    def write(self, file_prefix, options=None):
        """Write the checkpoint to exactly ``file_prefix`` (no numbering, no ``checkpoint`` file). Returns it."""
        return _save(self, os.fspath(file_prefix))

    def save(self, file_prefix, options=None):
        """Increment ``save_counter``, write ``file_prefix-<counter>``, record it in the directory's
        ``checkpoint`` file. Returns the path written."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        update_checkpoint_state(os.path.dirname(path), path, [path])
        return path

    # --- restoring --------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restore from ``save_path`` without creating ``save_counter``. Returns a load status."""
        nodes, arrays = _load(save_path)
        status = CheckpointLoadStatus(self, os.fspath(save_path), nodes, arrays)
        status._match(self, 0)
        return status

    def restore(self, save_path, options=None):
        """Restore the objects from ``save_path`` (``None``: nothing to restore). Returns a load status.

        Values are assigned immediately to the objects that exist; missing pieces of
        unbuilt Keras objects are restored when they are built (see the module docstring).
        """
        if save_path is None:
            return InitializationOnlyStatus()
        self._maybe_create_save_counter()
        return self.read(save_path, options)

    def __repr__(self):
        return f"<tf.train.Checkpoint: {', '.join(name for name, _ in self._checkpoint_children())}>"
