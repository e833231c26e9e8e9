"""Plausible wrong A6 passes: each must lose points on its own task, for every student seed."""


def _sub(old, new):
    """A fixture that replaces ``old`` (which must be there) by ``new`` in the solution's answer cell."""
    def edit(source):
        assert old in source, old
        return source.replace(old, new)
    return edit


def _subs(*pairs):
    def edit(source):
        for old, new in pairs:
            assert old in source, old
            source = source.replace(old, new)
        return source
    return edit


WRONG = {
    # --- task 1: pruning ---------------------------------------------------------------------------
    "pruning removes dead stateful nodes": ("pruning", {"pruning": _sub(
        " + [n for n in program.nodes if n.stateful]", "")}),
    "pruning removes only nodes nobody reads, in one sweep": ("pruning", {"pruning": _sub(
        "        live = set()\n",
        "        uses, waited = program.uses(), program.control_outputs()\n"
        "        live = {id(n) for n in program.nodes if n.stateful or id(n) in waited\n"
        "                or any(uses.get(id(v)) for v in n.outputs)}\n"
        "        stack = []\n")}),
    "pruning's liveness ignores control inputs": ("pruning", {"pruning": _sub(
        "            stack.extend(node.control_inputs)\n", "")}),
    "pruning never bypasses Identity / StopGradient": ("pruning", {"pruning": _sub(
        "if row is not None and row.forwarding", "if row is not None and row.forwarding and False")}),
    # --- task 2: constant folding --------------------------------------------------------------------
    "folding ignores the size limit": ("constant_folding", {"constant_folding": _subs(
        ("if size is not None and size > MAX_CONSTANT_BYTES:", "if False:"),
        ("if value.nbytes > MAX_CONSTANT_BYTES or not", "if not"))}),
    "folding does not materialize shapes (tf.size of a known shape)": ("constant_folding", {"constant_folding": _sub(
        "if node.op_def.shape_only and node.inputs and arrays[0] is None:", "if False:")}),
    "folding reads a node's inputs before visiting it (no chains)": ("constant_folding", {"constant_folding": _sub(
        "            rw.visit(node)\n            values = fold_values(node)\n",
        "            values = fold_values(node)\n            rw.visit(node)\n")}),
    "folding lets a failing kernel raise": ("constant_folding", {"constant_folding": _sub(
        "            try:\n                with np.errstate(all=\"ignore\"):\n"
        "                    result = node.op_def.kernel(\"numpy\")(*arrays, **node.attrs)\n"
        "            except Exception:\n                return None\n",
        "            result = node.op_def.kernel(\"numpy\")(*arrays, **node.attrs)\n")}),
    "folding folds random ops (checks only for a runtime argument)": ("constant_folding", {"constant_folding": _subs(
        ("if node.type == \"Const\" or node.stateful:", "if node.type == \"Const\" or node.type == \"ReadVariableOp\":"),
        ("result = node.op_def.kernel(\"numpy\")(*arrays, **node.attrs)",
         "result = node.op_def.kernel(\"numpy\")(*arrays, **node.attrs, "
         "**({\"_runtime\": None} if node.op_def.needs_runtime else {}))"))}),
    # --- task 3: CSE ------------------------------------------------------------------------------------
    "CSE sorts the inputs of every op (x - y is y - x)": ("cse", {"cse": _sub(
        "if node.op_def is not None and node.op_def.commutative:", "if True:")}),
    "CSE ignores attributes (but a constant's value)": ("cse", {"cse": _sub(
        "attrs = tuple(sorted((k, hashable(v)) for k, v in node.attrs.items()))",
        "attrs = tuple(sorted(node.attrs)) if node.type != \"Const\" else "
        "tuple(sorted((k, hashable(v)) for k, v in node.attrs.items()))")}),
    "CSE compares attributes by repr": ("cse", {"cse": _sub(
        "attrs = tuple(sorted((k, hashable(v)) for k, v in node.attrs.items()))",
        "attrs = repr(sorted(node.attrs.items()))")}),
    "CSE merges stateful nodes": ("cse", {"cse": _sub(
        "            if node.stateful:\n                continue\n", "")}),
    "CSE does not sort the inputs of commutative ops": ("cse", {"cse": _sub(
        "if node.op_def is not None and node.op_def.commutative:", "if False:")}),
    # --- task 4: the pipeline ------------------------------------------------------------------------------
    "the pipeline forgets CSE": ("pipeline", {"pipeline": _sub(
        "(ConstantFolding(), CSE(), Pruning())", "(ConstantFolding(), Pruning())")}),
    "the pipeline prunes first, one round": ("pipeline", {"pipeline": _subs(
        ("(ConstantFolding(), CSE(), Pruning())", "(Pruning(), ConstantFolding(), CSE())"),
        ("range(self.max_rounds)", "range(1)"))}),
    "the pipeline runs CSE before folding, one round": ("pipeline", {"pipeline": _subs(
        ("(ConstantFolding(), CSE(), Pruning())", "(CSE(), ConstantFolding(), Pruning())"),
        ("range(self.max_rounds)", "range(1)"))}),
}
