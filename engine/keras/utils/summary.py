"""``model.summary()``: the layer table, drawn as Keras 3 draws it (with Rich's box characters).

The layout follows Keras 3 exactly: the line length is
``min(88, terminal columns - 4)`` (76 in a non-terminal); columns are placed at
``positions`` (45%, 80%, 100% of the line; with a "Connected to" column for
non-sequential functional models, 30%, 56%, 74%, 100%). Rich then shrinks the
columns evenly to fit the borders and padding (``_ratio_reduce``), and wraps
each cell's words, cutting a word too long for its cell with ``…``. The totals
count weights and their bytes; after training, the optimizer's variables too.
"""
import math
import shutil

from ..keras_tensor import KerasTensor

__all__ = ["print_summary", "count_params"]


def count_params(weights):
    return int(sum(math.prod(w.shape.as_list()) for w in weights))


def _memory(weights):
    seen, total = set(), 0
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            total += math.prod(w.shape.as_list()) * w.dtype.size
    return total


def readable_memory_size(size):
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _format_shape(shape):
    if shape is None:
        return "?"
    if isinstance(shape, tuple) and all(d is None or isinstance(d, int) for d in shape):
        return "(" + ", ".join(str(d) for d in shape) + ")"
    if isinstance(shape, (list, tuple)):
        return str([_format_shape(s) for s in shape]).replace("'", "")
    return str(shape)


def _ratio_reduce(total, ratios, maximums, values):
    """Rich's ``ratio_reduce``: take ``total`` away from ``values`` in proportion to ``ratios``."""
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return list(values)
    remaining, out = total, []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            distributed = min(maximum, round(ratio * remaining / total_ratio))
            out.append(value - distributed)
            remaining -= distributed
            total_ratio -= ratio
        else:
            out.append(value)
    return out


def _wrap(text, width):
    """Greedy word wrap; a word longer than ``width`` is cut with an ellipsis."""
    lines, line = [], ""
    for word in text.split(" "):
        if len(word) > width:
            word = word[:width - 1] + "…"
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines


def _is_sequential_like(model):
    nodes_by_depth = getattr(model, "_nodes_by_depth", None)
    if nodes_by_depth is None:
        return True
    for nodes in nodes_by_depth.values():
        if len(nodes) > 1 or (len(nodes) == 1 and len(nodes[0].input_tensors) > 1):
            return False
    return True


def _connections(layer, model):
    relevant = {id(n) for nodes in model._nodes_by_depth.values() for n in nodes}
    parts = []
    for node in layer._inbound_nodes:
        if id(node) not in relevant:
            continue
        for kt in node.input_tensors:
            history = kt._keras_history
            parts.append(f"{history.operation.name}[{history.node_index}][{history.tensor_index}]")
    return ", ".join(parts) if parts else "-"


def _output_shape(layer):
    if layer._inbound_nodes:
        outputs = layer._inbound_nodes[-1].outputs
        flat = [t for t in (outputs if isinstance(outputs, (list, tuple)) else [outputs])
                if isinstance(t, KerasTensor)]
        if len(flat) == 1:
            return _format_shape(flat[0].shape)
        return _format_shape([t.shape for t in flat])
    return _format_shape(layer._output_shape)


def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False,
                  show_trainable=False, layer_range=None):
    sequential_like = _is_sequential_like(model)
    layers = model.layers
    if sequential_like:
        default_length, positions = 88, positions or [0.45, 0.80, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default_length, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #", "Connected to"], ["left", "left", "right", "left"]
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        align.append("center")
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    if positions[-1] <= 1:
        positions = [int(p * line_length) for p in positions]
    widths, current = [], 0
    for pos in positions:
        widths.append(pos - current)
        current = pos
    # Rich: each column gets 2 padding; the table (with its n + 1 borders) must fit line_length
    segments = [w + 2 for w in widths]
    excess = sum(segments) - (line_length - len(segments) - 1)
    if excess > 0:
        segments = _ratio_reduce(excess, [1] * len(segments), segments, segments)

    rows = []
    if layer_range is not None:
        names = [layer.name for layer in layers]
        start = next(i for i, n in enumerate(names) if n == layer_range[0])
        end = max(i for i, n in enumerate(names) if n == layer_range[1])
        layers = layers[start:end + 1]

    def add_rows(layer, level=0):
        prefix = ("   " * level + "└ ") if level else ""
        if not layer.built:
            params = "0 (unbuilt)"
        else:
            params = f"{layer.count_params():,}"
        fields = [f"{prefix}{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        if not sequential_like:
            fields.append(_connections(layer, model))
        if show_trainable:
            fields.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        rows.append(fields)
        if expand_nested and getattr(layer, "layers", None) and hasattr(layer, "summary"):
            for sub in layer.layers:
                add_rows(sub, level + 1)
    for layer in layers:
        add_rows(layer)

    def border(left, fill, mid, right):
        return left + mid.join(fill * s for s in segments) + right

    def cells(fields, bar):
        wrapped = [_wrap(text, s - 2) for text, s in zip(fields, segments)]
        height = max(len(w) for w in wrapped)
        out = []
        for i in range(height):
            parts = []
            for lines, s, a in zip(wrapped, segments, align):
                text = lines[i] if i < len(lines) else ""
                text = text.rjust(s - 2) if a == "right" else text.center(s - 2) if a == "center" else \
                    text.ljust(s - 2)
                parts.append(" " + text + " ")
            out.append(bar + bar.join(parts) + bar)
        return out

    lines = [f'Model: "{model.name}"', border("┏", "━", "┳", "┓")]
    lines += cells(header, "┃")
    lines.append(border("┡", "━", "╇", "┩"))
    for i, fields in enumerate(rows):
        if i:
            lines.append(border("├", "─", "┼", "┤"))
        lines += cells(fields, "│")
    lines.append(border("└", "─", "┴", "┘"))

    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    optimizer_vars = optimizer.variables if (getattr(model, "compiled", False) and optimizer is not None
                                             and optimizer.built) else None
    total = count_params(trainable) + count_params(non_trainable)
    total_bytes = _memory(trainable) + _memory(non_trainable)
    if optimizer_vars is not None:
        total += count_params(optimizer_vars)
        total_bytes += _memory(optimizer_vars)
    lines.append(f" Total params: {total:,} ({readable_memory_size(total_bytes)})")
    lines.append(f" Trainable params: {count_params(trainable):,} ({readable_memory_size(_memory(trainable))})")
    lines.append(f" Non-trainable params: {count_params(non_trainable):,} "
                 f"({readable_memory_size(_memory(non_trainable))})")
    if optimizer_vars is not None:
        lines.append(f" Optimizer params: {count_params(optimizer_vars):,} "
                     f"({readable_memory_size(_memory(optimizer_vars))})")
    if print_fn is None:
        print("\n".join(lines))
    else:   # as Keras 3: the whole summary in one call, ending with a newline (what rich's console captured)
        print_fn("\n".join(lines) + "\n")
