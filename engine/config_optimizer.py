"""``tf.config.optimizer``: switch the graph optimizer's passes on and off.

The graph optimizer (``engine/framework/optimizer/``, the engine's Grappler)
runs whenever a graph is compiled: ``Session.run`` and ``tf.function``. Each of
its passes can be switched off with TensorFlow's own option names::

    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    tf.config.optimizer.get_experimental_options()
    # {'constant_folding': False, 'disable_model_pruning': False, 'disable_meta_optimizer': False}

===============================  ===============================================  =======
option                           pass                                             default
===============================  ===============================================  =======
``constant_folding``             constant folding                                 on
``arithmetic_optimization``      arithmetic simplification (and CSE, as in TF)    on
``common_subgraph_elimination``  common-subexpression elimination                 on
``remapping``                    fusion (``_FusedMatMul`` and elementwise)        on
``disable_model_pruning``        True switches off dead-node pruning              False
``memory_optimization``          release values at last use, buffer reuse         on
``disable_meta_optimizer``       True switches off every pass                     False
``min_graph_nodes``              skip graphs with fewer nodes (0: no minimum)     0
``elementwise_fusion``           (engine only) the elementwise part of remapping  on
===============================  ===============================================  =======

As in TensorFlow: setting a key to ``None`` restores its default, keys the
optimizer does not know are accepted and ignored, other values are read as
booleans, and ``get_experimental_options`` lists the toggles that were set plus
``disable_model_pruning`` and ``disable_meta_optimizer``. CSE runs only when
neither ``common_subgraph_elimination`` nor ``arithmetic_optimization`` is off
(Grappler's rule).

Deliberate differences: TF's ``set_experimental_options`` silently ignores
``common_subgraph_elimination`` and ``memory_optimization`` (they exist only in
``RewriterConfig``); the engine honours them, and lists them (and
``elementwise_fusion``) in ``get_experimental_options`` once set. TF's default
``min_graph_nodes`` is 4 (tiny graphs are not optimized); the engine optimizes
every graph, so small examples show what each pass does.

Changing an option affects graphs compiled afterwards; every compiled plan
records the options it was made with (``plan.options``).
"""
import threading

__all__ = ["set_experimental_options", "get_experimental_options", "set_jit", "get_jit", "effective_options",
           "options_key"]

# The toggles TF's get_experimental_options reports, in its order.
_TF_TOGGLES = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
               "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper",
               "disable_model_pruning", "scoped_allocator_optimization", "pin_to_host_optimization",
               "implementation_selector", "auto_mixed_precision", "use_plugin_optimizers",
               "disable_meta_optimizer", "auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_mkl")
_BOOLS = ("disable_model_pruning", "disable_meta_optimizer")
_ENGINE_TOGGLES = ("common_subgraph_elimination", "memory_optimization", "elementwise_fusion")

_lock = threading.Lock()
_options = {}
_jit = [None]
_generation = [0]          # bumped by every change: cached plans compare it
_key_cache = [(-1, None)]  # (generation, options_key()) for the global options


def set_experimental_options(options):
    """Set optimizer options (a dict; see the module docstring). ``None`` values restore defaults."""
    with _lock:
        _options.update(dict(options))
        _generation[0] += 1


def _replace_all(options):
    """Replace every option at once (tests use it to restore the options they changed)."""
    with _lock:
        _options.clear()
        _options.update(options)
        _generation[0] += 1


def get_experimental_options():
    """The options set so far, as TensorFlow reports them."""
    with _lock:
        options = dict(_options)
    out = {}
    for key in _TF_TOGGLES + _ENGINE_TOGGLES:
        if key in _BOOLS:
            out[key] = bool(options.get(key) or False)
        elif options.get(key) is not None:
            out[key] = bool(options[key])
    if options.get("min_graph_nodes"):
        out["min_graph_nodes"] = int(options["min_graph_nodes"])
    return out


def set_jit(enabled):
    """Accepted for compatibility: the engine has no XLA. ``get_jit`` reports it as TF does."""
    _jit[0] = enabled


def get_jit():
    value = _jit[0]
    if value in (None, False, ""):
        return ""
    return "autoclustering" if value is True else str(value)


def effective_options(options=None):
    """Which passes run, as a dict of booleans (plus ``min_graph_nodes``), from ``options`` or the global ones."""
    if options is None:
        with _lock:
            options = dict(_options)

    def on(key):
        value = options.get(key)
        return True if value is None else bool(value)

    everything = not bool(options.get("disable_meta_optimizer") or False)
    arithmetic = on("arithmetic_optimization")
    return {
        "constant_folding": everything and on("constant_folding"),
        "arithmetic_optimization": everything and arithmetic,
        "common_subgraph_elimination": everything and arithmetic and on("common_subgraph_elimination"),
        "remapping": everything and on("remapping"),
        "elementwise_fusion": everything and on("remapping") and on("elementwise_fusion"),
        "model_pruning": everything and not bool(options.get("disable_model_pruning") or False),
        "memory_optimization": everything and on("memory_optimization"),
        "min_graph_nodes": int(options.get("min_graph_nodes") or 0),
    }


def options_key(options=None):
    """A hashable fingerprint of :func:`effective_options`: part of a plan cache key.

    For the global options it is cached until the next ``set_experimental_options``,
    so ``Session.run`` can afford to call it on every run.
    """
    if options is not None:
        return tuple(sorted(effective_options(options).items()))
    generation, key = _key_cache[0]
    if generation != _generation[0]:
        generation = _generation[0]
        key = tuple(sorted(effective_options().items()))
        _key_cache[0] = (generation, key)
    return key
