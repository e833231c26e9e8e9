"""Plausible wrong A4 answers: each must lose points on its own task, for every student seed."""


def sub(old, new, count=1):
    """A fixture that replaces ``old`` by ``new`` in the solution cell (and fails loudly if ``old`` is gone)."""
    def edit(source):
        assert source.count(old) >= count, f"fixture is stale: {old!r} is not in the solution cell"
        return source.replace(old, new)
    return edit


def subs(*pairs):
    def edit(source):
        for old, new in pairs:
            source = sub(old, new)(source)
        return source
    return edit


WRONG = {
    # --- task 1: if_stmt -------------------------------------------------------------------------------
    "if_stmt: tf.cond for Python conditions too": ("if_stmt", {"if_stmt": sub(
        "    if not is_symbolic(cond):",
        "    if tf.executing_eagerly():")}),
    "if_stmt: the else branch starts from what the if branch computed": ("if_stmt", {"if_stmt": sub(
        "            set_state(before)                # each branch starts from the values before the if\n", "")}),
    "if_stmt: tf.cond calls the branches themselves (nothing is returned)": ("if_stmt", {"if_stmt": sub(
        "    set_state(tf.cond(cond, branch(body, \"main\"), branch(orelse, \"else\")))",
        "    tf.cond(cond, body, orelse)")}),
    "if_stmt: the outputs of tf.cond are not written back": ("if_stmt", {"if_stmt": sub(
        "    set_state(tf.cond(cond, branch(body, \"main\"), branch(orelse, \"else\")))",
        "    tf.cond(cond, branch(body, \"main\"), branch(orelse, \"else\"))")}),
    # --- task 2: while_stmt, for_range ---------------------------------------------------------------
    "loops: the Python while runs its body before the first test": ("loops", {"loops": sub(
        "        while first:\n            body()\n            first = test()",
        "        body()\n        while test():\n            body()")}),
    "loops: for_range ignores the step": ("loops", {"loops": subs(
        ("        for i in range(start, stop, step):", "        for i in range(start, stop):"),
        ("        return (i + step,) + tuple(get_state())", "        return (i + 1,) + tuple(get_state())"))}),
    "loops: for_range ignores extra_test": ("loops", {"loops": subs(
        ("            if extra_test is not None and not extra_test():\n                break\n", ""),
        ("        return more if extra_test is None else tf.logical_and(more, extra_test())", "        return more"))}),
    "loops: tf.while_loop for Python conditions too": ("loops", {"loops": sub(
        "    if not is_symbolic(first):", "    if tf.executing_eagerly():")}),
    "loops: the while body does not set the loop variables first": ("loops", {"loops": sub(
        "    def loop_body(*values):\n        set_state(values)\n        body()",
        "    def loop_body(*values):\n        body()")}),
    # --- task 3: convert_if ----------------------------------------------------------------------------
    "convert_if: every modified name is an output (no liveness)": ("convert_if", {"convert_if": sub(
        "    outputs = sorted(modified & node.ag_live_out)", "    outputs = sorted(modified)")}),
    "convert_if: no Undefined for names without a value": ("convert_if", {"convert_if": sub(
        "    return define_missing(modified) + state + [then_def, else_def, call]",
        "    return state + [then_def, else_def, call]")}),
    "convert_if: the else branch is not converted": ("convert_if", {"convert_if": sub(
        "declare_nonlocal(modified) + convert_block(node.orelse)", "declare_nonlocal(modified) + node.orelse")}),
    "convert_if: no nonlocal in the branch functions": ("convert_if", {"convert_if": subs(
        ("declare_nonlocal(modified) + convert_block(node.body)", "convert_block(node.body)"),
        ("declare_nonlocal(modified) + convert_block(node.orelse)", "convert_block(node.orelse)"))}),
    # --- task 4: convert_while, convert_for -----------------------------------------------------------
    "convert_loops: every modified name is a loop variable": ("convert_loops", {"convert_loops": sub(
        "    loop_vars = sorted(modified & node.ag_live_at_head)", "    loop_vars = sorted(modified)", count=2)}),
    "convert_loops: range(start, stop) loses its start": ("convert_loops", {"convert_loops": sub(
        "    if len(args) == 2:\n        args = args + [ast.Constant(1)]",
        "    if len(args) == 2:\n        args = [ast.Constant(0), args[1], ast.Constant(1)]")}),
    "convert_loops: the while body is not converted": ("convert_loops", {"convert_loops": sub(
        "    body_def = make_function(body_name, [], declare_nonlocal(modified) + convert_block(node.body))",
        "    body_def = make_function(body_name, [], declare_nonlocal(modified) + node.body)")}),
    "convert_loops: the for target is never assigned": ("convert_loops", {"convert_loops": sub(
        "declare_nonlocal(modified) + [target] + convert_block(node.body)",
        "declare_nonlocal(modified) + convert_block(node.body)")}),
    # --- task 5: lower_jumps -----------------------------------------------------------------------------
    "lower_jumps: the rest of the block is not guarded": ("lower_jumps", {"lower_jumps": sub(
        "            if rest:\n                guard = ast.parse(f\"if ag__.not_({flag}):\\n    pass\").body[0]\n"
        "                guard.body = rest\n                out.append(guard)",
        "            out += rest")}),
    "lower_jumps: the continue flag is reset once, before the loop": ("lower_jumps", {"lower_jumps": sub(
        "            s.body = [ast.parse(f\"{flag} = False\").body[0]] + body",
        "            s.body = body\n            before.append(ast.parse(f\"{flag} = False\").body[0])")}),
    "lower_jumps: the loop does not stop on the break flag": ("lower_jumps", {"lower_jumps": subs(
        ("                s.test = test\n", ""),
        ("                s.ag_extra_test = ast.parse(f\"ag__.not_({flag})\", mode=\"eval\").body", "                pass"))}),
    "lower_jumps: flags are tensors": ("lower_jumps", {"lower_jumps": sub(
        "{flag} = False\"", "{flag} = tf.constant(False)\"", count=2)}),
}
