"""A4 (AutoGraph) beyond the generic checks of ``test_assignments.py``.

* An honest A4 written differently from the reference (AST nodes built by hand instead of parsed
  templates, static bookkeeping, a `while` runtime that peeks at its test differently, `for_range`
  combining its tests with `tf.cond`, a recursive `lower_jumps`) gets full marks.
* The grader is fair: on many random programs of every task, the reference notebook's pieces, run
  in this process exactly as the harness runs a student's, match the engine's own AutoGraph.
* The sandbox's engine really lacks the converter: `tf.function` with AutoGraph raises
  NotImplementedError there, works with `autograph=False`, and works through the notebook's converter.
* Messages name the program and the run.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from autograder import absence, grading
from autograder.assignments import a4
from autograder.harness import a4 as harness
from autograder.sandbox import REPO

import assignment_kit as kit

IF_STMT = '''
def _raise_if_undefined(names, values, branch):
    for n, v in zip(names, values):
        if isinstance(v, Undefined):
            raise ValueError(f"'{n}' must also be initialized in the {branch} branch")


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names):
    if is_symbolic(cond):
        initial = tuple(get_state())

        def run(branch, label):
            set_state(initial)
            branch()
            out = tuple(get_state())
            _raise_if_undefined(symbol_names, out, label)
            return out
        result = tf.cond(cond, lambda: run(body, "main"), lambda: run(orelse, "else"))
        set_state(tuple(result))
    else:
        (body if cond else orelse)()
'''

LOOPS = '''
def while_stmt(test, body, get_state, set_state, symbol_names):
    peek = test()
    if is_symbolic(peek):
        def cond(*state):
            set_state(state)
            return test()

        def step(*state):
            set_state(state)
            body()
            return tuple(get_state())
        set_state(tuple(tf.while_loop(cond, step, tuple(get_state()))))
        return
    if peek:
        body()
        while test():
            body()


def for_range(start, stop, step, extra_test, body, get_state, set_state, symbol_names):
    if is_symbolic(start) or is_symbolic(stop) or is_symbolic(step):
        def cond(index, *state):
            set_state(state)
            if extra_test is None:
                return index < stop
            return tf.cond(index < stop, extra_test, lambda: False)   # lazy, as TF does

        def loop(index, *state):
            set_state(state)
            body(index)
            return (index + step,) + tuple(get_state())
        result = tf.while_loop(cond, loop, (start,) + tuple(get_state()))
        set_state(tuple(result)[1:])
        return
    index = start
    while index < stop and (extra_test is None or extra_test()):
        body(index)
        index += step
'''

CONVERT_IF = '''
def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def state_functions(names):
    getter, setter = new_name("get"), new_name("put")
    get_def = make_function(getter, [], [ast.Return(value=ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load()))])
    body = []
    if names:
        target = ast.Tuple(elts=[_name(n, True) for n in names], ctx=ast.Store())
        body = [ast.Nonlocal(names=list(names)), ast.Assign(targets=[target], value=_name("vals"))]
    put_def = make_function(setter, ["vals"], body)
    return getter, setter, [get_def, put_def]


def _call(function, args):
    return ast.Expr(value=ast.Call(func=ast.Attribute(value=_name("ag__"), attr=function, ctx=ast.Load()),
                                   args=args, keywords=[]))


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def convert_if(node):
    changed = sorted(assigned(node.body) | assigned(node.orelse))
    outs = [n for n in changed if n in node.ag_live_out]
    getter, setter, defs = state_functions(outs)
    yes, no = new_name("yes"), new_name("no")
    defs.append(make_function(yes, [], declare_nonlocal(changed) + convert_block(node.body)))
    defs.append(make_function(no, [], declare_nonlocal(changed) + convert_block(node.orelse)))
    call = _call("if_stmt", [node.test, _name(yes), _name(no), _name(getter), _name(setter), _strings(outs)])
    return define_missing(changed) + defs + [call]
'''

CONVERT_LOOPS = '''
def convert_while(node):
    changed = assigned(node.body)
    carried = sorted(n for n in changed if n in node.ag_live_at_head)
    getter, setter, defs = state_functions(carried)
    test, step = new_name("test"), new_name("step")
    defs.append(make_function(test, [], [ast.Return(value=node.test)]))
    defs.append(make_function(step, [], declare_nonlocal(changed) + convert_block(node.body)))
    call = _call("while_stmt", [_name(test), _name(step), _name(getter), _name(setter), _strings(carried)])
    return define_missing(changed) + defs + [call]


def _is_range(node):
    it = node.iter
    return (isinstance(node.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and not it.keywords and len(it.args) in (1, 2, 3))


def convert_for(node):
    if not _is_range(node):
        node.body = convert_block(node.body)
        return [node]
    a = node.iter.args
    if len(a) == 1:
        start, stop, step = ast.Constant(0), a[0], ast.Constant(1)
    else:
        start, stop, step = a[0], a[1], (a[2] if len(a) == 3 else ast.Constant(1))
    changed = assigned(node.body) | {node.target.id}
    carried = sorted(n for n in changed if n in node.ag_live_at_head)
    getter, setter, defs = state_functions(carried)
    step_name, index = new_name("step"), new_name("index")
    first = ast.Assign(targets=[_name(node.target.id, True)], value=_name(index))
    defs.append(make_function(step_name, [index], declare_nonlocal(changed) + [first] + convert_block(node.body)))
    extra = ast.Constant(None)
    if getattr(node, "ag_extra_test", None) is not None:
        extra_name = new_name("more")
        defs.append(make_function(extra_name, [], [ast.Return(value=node.ag_extra_test)]))
        extra = _name(extra_name)
    call = _call("for_range", [start, stop, step, extra, _name(step_name), _name(getter), _name(setter),
                               _strings(carried)])
    return define_missing(changed) + defs + [call]
'''

LOWER_JUMPS = '''
def _not(flag):
    return ast.parse(f"ag__.not_({flag})", mode="eval").body


def _set(flag, value):
    return ast.parse(f"{flag} = {value}").body[0]


def _lower(stmts, kind, flag):
    """Jumps of `kind` -> `flag = True`, recursively: after a statement that may jump, one guard for the rest."""
    if not stmts:
        return [], False
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, kind):
        return [_set(flag, True)], True
    jumped = False
    if isinstance(first, ast.If):
        first.body, j1 = _lower(first.body, kind, flag)
        first.orelse, j2 = _lower(first.orelse, kind, flag)
        jumped = j1 or j2
    tail, tail_jumped = _lower(rest, kind, flag)
    if jumped and tail:
        return [first, ast.If(test=_not(flag), body=tail, orelse=[])], True
    return [first] + tail, jumped or tail_jumped


def lower_jumps(stmts):
    result = []
    for s in stmts:
        if isinstance(s, ast.If):
            s.body = lower_jumps(s.body)
            s.orelse = lower_jumps(s.orelse)
            result.append(s)
            continue
        if not isinstance(s, (ast.For, ast.While)):
            result.append(s)
            continue
        s.body = lower_jumps(s.body)
        if has_jump(s.body, ast.Continue):
            skip = new_name("skip")
            body, _ = _lower(s.body, ast.Continue, skip)
            s.body = [_set(skip, False)] + body
        if has_jump(s.body, ast.Break):
            stop = new_name("stop")
            s.body, _ = _lower(s.body, ast.Break, stop)
            result.append(_set(stop, False))
            if isinstance(s, ast.While):
                s.test = ast.Call(func=ast.parse("ag__.and_", mode="eval").body, args=[_not(stop), s.test],
                                  keywords=[])
            else:
                s.ag_extra_test = _not(stop)
        result.append(s)
    return result
'''

HONEST = {"if_stmt": IF_STMT, "loops": LOOPS, "convert_if": CONVERT_IF, "convert_loops": CONVERT_LOOPS,
          "lower_jumps": LOWER_JUMPS}


@pytest.fixture(scope="module")
def pool():
    with kit.pool("A4") as p:
        yield p


def test_an_honest_variant_gets_full_marks(pool, tmp_path):
    # (convert_loops uses the helpers _name/_call/_strings of this convert_if cell: they stay defined when
    # the reference convert_if cell is injected, which redefines only state_functions and convert_if)
    replace = HONEST
    for seed in (3, 2024):
        res = kit.grade("A4", kit.submission("A4", str(tmp_path / f"honest{seed}.ipynb"), replace=replace),
                        seed=seed, pool=pool, n=4)
        assert grading.total(res, "A4") == 20, grading.report(res, "A4")
        assert res["_notes"] == [], res["_notes"]


def _graded_in_process(task, c):
    """What the harness returns for case ``c`` with the reference notebook's pieces (no sandbox)."""
    import engine as tf
    ns = a4._reference_notebook()
    return harness.HARNESS[task](tf, None, ns, c, {})


@pytest.mark.parametrize("task", [t.name for t in a4.TASKS])
def test_the_reference_pieces_match_the_engine_on_random_programs(task):
    rng = np.random.default_rng(hash(task) % 1000)
    cases = [a4.random_case(rng, task, k) for k in range(14)]
    for c in cases:
        if task in a4.RUNTIME_TASKS:
            c["converted"] = a4.reference_conversion(c["source"])
        exp = a4.expected({"name": task, "cases": [c]})[0]
        got = _graded_in_process(task, c)
        assert a4.check_case(task, c, exp, got) is None, a4.check_case(task, c, exp, got)


def test_fixed_cores_hold_what_they_promise():
    plan = a4.make_plan(5, n=2)
    by_task = {t["name"]: t["cases"] for t in plan["tasks"]}
    for t in a4.TASKS:
        cases = by_task[t.name]
        assert [c["label"] for c in cases[:len(a4.FIXED[t.name])]] == [c["label"] for c in a4.FIXED[t.name]]
        exp = a4.expected({"name": t.name, "cases": cases})
        for c, e in zip(cases, exp):   # every program holds what its task converts, and TF runs it (but one)
            assert any(w in c["source"] for w in a4.NEEDS[t.name]), c["source"]
            errors = [r for r in e if not isinstance(r, dict)]
            assert errors == (["error:ValueError"] if c["label"] == a4.ONE_BRANCH["label"] else []), (c, e)
    ops = {c["label"]: e for c, e in zip(by_task["if_stmt"], a4.expected({"name": "if_stmt",
                                                                             "cases": by_task["if_stmt"]}))}
    assert ops[a4.ONE_IF["label"]][0]["ops"] == [1, 0] and ops[a4.ONE_IF["label"]][2]["ops"] == [0, 0]
    assert ops[a4.ONE_BRANCH["label"]][0] == "error:ValueError"
    assert a4.make_plan(5, n=2) == plan                      # the same student always gets the same tests


def test_messages_name_the_program_and_the_run():
    c = a4.ONE_IF
    exp = a4.expected({"name": "convert_if", "cases": [c]})[0]
    got = [dict(exp[0], ops=[2, 0])] + exp[1:]
    message = a4.check_case("convert_if", c, exp, got)
    assert "a tensor if" in message and "if x > 0.5:" in message
    assert "traced by tf.function with x=tf.constant(1.5, float32)" in message and "1 If op(s)" in message
    got = ["error:NameError"] + exp[1:]
    assert "your code raised NameError" in a4.check_case("convert_if", c, exp, got)


def test_the_sandbox_engine_has_no_converter_but_runs_the_notebooks(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "engine"), root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    absence.apply(str(root / "engine"), a4.ABSENT, "A4")
    cells = grading.source_cells("A4")
    script = root / "probe.py"
    script.write_text(
        "import linecache\nimport engine as tf\n"
        f"ns = {{'__name__': '__main__'}}\n"
        f"for src in {[cells['setup']] + [cells[t.cell] for t in a4.TASKS]!r}:\n"
        "    exec(compile(src, '<cell>', 'exec'), ns)\n"
        "src = 'def f(x):\\n    if x > 0.0:\\n        x = x * 2.0\\n    return x\\n'\n"
        "linecache.cache['<f>'] = (len(src), None, src.splitlines(True), '<f>')\n"
        "g = {'__name__': 'user'}\nexec(compile(src, '<f>', 'exec'), g)\nf = g['f']\n"
        "try:\n    tf.function(f)(tf.constant(1.0))\n    print('CONVERTED')\n"
        "except NotImplementedError as e:\n    print('ABSENT', 'A4' in str(e))\n"
        "print('PLAIN', float(tf.function(f, autograph=False)(2.0)))\n"
        "with ns['seams'].using(autograph=ns['MyAutoGraph']):\n"
        "    print('MINE', float(tf.function(f)(tf.constant(3.0))), float(tf.function(f)(tf.constant(-3.0))))\n")
    out = subprocess.run([sys.executable, "-S", str(script)], cwd=root, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": f"{root}{os.pathsep}{os.path.dirname(os.path.dirname(np.__file__))}",
                              "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ABSENT", "True", "PLAIN", "4.0", "MINE", "6.0", "-3.0"], out.stdout
