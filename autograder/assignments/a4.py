"""Assignment A4 (build your own AutoGraph): generated programs, expected values, comparison.

Everything here runs in the *grader* process, with the repository's pristine engine. A case is a
small generated program ``def prog(x, n, k)`` (nested ``if``/``while``/``for i in range(...)``,
``break``/``continue``) and the runs to make of it (traced with some arguments tensors, or eager);
``harness/a4.py`` runs it in the sandbox through the student's pieces, and :func:`expected` runs it
here through the engine's own AutoGraph. A run's result is its outputs (values and dtypes) and, when
traced, the number of ``If`` and ``While`` ops in the graph (sub-graphs included), or an error class.

The runtime tasks (``if_stmt``, ``loops``) get each program already converted, in the notebook's
protocol (``ag__.if_stmt(...)``, ``ag__.for_range(...)``): :func:`reference_conversion` converts it
here with the solution notebook's converter cells. The sandbox then needs no converter for them, so
every task's injections are cells of *earlier* tasks only, and the student's own cells are never
overwritten before they are graded.
"""
import functools
import json
import os

import numpy as np

from ..harness import a4 as worker
from . import Task, default_score  # noqa: F401

NAME = "A4"
TITLE = "Build your own AutoGraph: runtime if/while/for, the AST transforms of if and loops, break/continue"
HOURS = "4-6 h"
SEAM = "autograph"
HARNESS = "a4"
ABSENT = {
    "engine/autograph/converter.py": ["convert_function", "convert_lambda", "lower_loop_jumps", "_replace_jumps",
                                      "_replace_breaks", "_lower_breaks", "_lower_continues",
                                      "lower_returns", "_lower_returns", "_rewrite_conditional_returns",
                                      "ExpressionConverter", "ControlFlowConverter"],
    "engine/autograph/api.py": ["AutoGraph.convert", "_converted_code"],
    "engine/autograph/operators.py": ["if_stmt", "_tf_if_stmt", "while_stmt", "_py_while_stmt", "_tf_while_stmt",
                                      "_try_handling_undefineds", "for_stmt", "_py_for_stmt",
                                      "_known_len_tf_for_stmt", "_tf_range_for_stmt"],
}
TASKS = [
    Task("if_stmt", "if_stmt", "test_if_stmt", 4, ("2.3",)),
    Task("loops", "loops", "test_loops", 5, ("2.3",)),
    Task("convert_if", "convert_if", "test_convert_if", 4, ("2.3",)),
    Task("convert_loops", "convert_loops", "test_convert_loops", 4, ("2.3",)),
    Task("lower_jumps", "lower_jumps", "test_lower_jumps", 3, ("2.3",)),
]
# Only cells of earlier tasks: a task's own cell is still the student's when it is graded.
INJECT = {"loops": ["if_stmt"], "convert_if": ["if_stmt", "loops"],
          "convert_loops": ["if_stmt", "loops", "convert_if"],
          "lower_jumps": ["if_stmt", "loops", "convert_if", "convert_loops"]}
RUNTIME_TASKS = ("if_stmt", "loops")


# --- runs: how a program is called ----------------------------------------------------------------
def _arg(tensor, dtype, value):
    return ["t", dtype, value] if tensor else ["py", None, value]


def run(kind, x=1.0, n=3, k=2):
    """``kind``: T (x and n tensors), X (x a tensor), N (n a tensor), P (all Python), E (eager, tensors)."""
    tx, tn = kind in ("T", "X", "E"), kind in ("T", "N", "E")
    return {"mode": "eager" if kind == "E" else "graph",
            "args": [_arg(tx, "float32", float(x)), _arg(tn, "int32", int(n)), _arg(False, None, int(k))]}


def case(label, source, runs, exact_if=True):
    return {"label": label, "source": source.strip("\n") + "\n", "runs": runs, "exact_if": exact_if}


# --- the fixed cores: every student gets these ------------------------------------------------------
ONE_IF = case("a tensor if", """
def prog(x, n, k):
    if x > 0.5:
        y = x * x
    else:
        y = -x
    return y
""", [run("T", x=1.5), run("T", x=-0.5), run("P", x=1.5), run("E", x=-0.5)])

PYTHON_IF = case("a Python condition stays Python, also inside a tensor branch", """
def prog(x, n, k):
    a = x
    if k > 1:
        a = a * 2.0
    if x > 0.0:
        if k == 2:
            a = a + 1.0
        else:
            a = a - 1.0
    return a
""", [run("T", x=1.5, k=2), run("X", x=-1.0, k=3), run("P", x=1.5, k=1), run("E", x=1.5, k=2)])

ONE_BRANCH = case("a variable defined in one branch only", """
def prog(x, n, k):
    if x > 0.5:
        y = x * 2.0
    return y
""", [run("T", x=1.5), run("P", x=1.5), run("E", x=1.5)])

SAME_VARIABLES = case("both branches update the same variables; an if without outputs", """
def prog(x, n, k):
    a = x * 0.5
    c = 0
    if x < 1.0:
        a = a + 1.0
        c = c + 2
    else:
        a = a - 1.0
    if n > 2:
        t = a * 3.0
    return a, c
""", [run("T", x=0.5, n=3), run("T", x=1.5, n=1), run("N", x=0.5, n=3), run("P", x=1.5, n=3)])

NESTED_IFS = case("nested tensor ifs; a variable first defined in every branch", """
def prog(x, n, k):
    if x > 0.0:
        if n > 2:
            z = x + 1.0
        else:
            z = x - 1.0
    else:
        z = x * 3.0
    return z
""", [run("T", x=1.0, n=3), run("X", x=1.0, n=1), run("N", x=-1.0, n=3), run("P", x=1.0, n=3), run("E", x=1.0, n=1)])

TEMPORARY = case("a variable used only inside a branch (not an output)", """
def prog(x, n, k):
    a = x
    if x > 0.5:
        t = x * 2.0
        a = a + t
    return a
""", [run("T", x=1.5), run("T", x=0.0), run("P", x=1.5)])

ELIF = case("elif, and a parameter reassigned in a branch", """
def prog(x, n, k):
    if x > 1.0:
        x = x - 1.0
    elif x < 0.0:
        x = -x
    else:
        x = x * 10.0
    return x
""", [run("T", x=2.0), run("T", x=-0.5), run("T", x=0.5), run("P", x=0.5), run("E", x=-0.5)])

TWO_LOOP_VARS = case("a tensor while with two loop variables", """
def prog(x, n, k):
    s = 0.0
    j = 0
    while j < n:
        s = s + x
        j = j + 1
    return s, j
""", [run("T", x=1.5, n=3), run("T", x=1.5, n=0), run("P", x=1.5, n=3), run("E", x=1.5, n=3)])

HALVINGS = case("a while on a float (a parameter as loop variable), and one that never iterates", """
def prog(x, n, k):
    m = 0
    while x > 1.0:
        x = x / 2.0
        m = m + 1
    return x, m
""", [run("T", x=10.0), run("P", x=10.0), run("P", x=0.5), run("E", x=10.0)])

RANGES = case("for range(tensor n), with a start and a step", """
def prog(x, n, k):
    s = x
    for i in range(n):
        s = s * 0.5 + 1.0
    c = 0
    for i in range(2, n):
        c = c + i
    d = 0
    for i in range(0, n, 2):
        d = d + i
    return s, c, d
""", [run("T", x=0.0, n=5), run("P", x=0.0, n=5), run("E", x=0.0, n=5)])

UNROLLED = case("a Python loop is unrolled; the tensor if inside it is staged each time", """
def prog(x, n, k):
    a = x
    for i in range(3):
        if a > 1.0:
            a = a * 0.5
        else:
            a = a + 1.0
    return a
""", [run("X", x=1.5), run("P", x=1.5), run("E", x=0.5)])

FOR_BREAK = case("a break in a for loop (extra_test)", """
def prog(x, n, k):
    c = 0
    for i in range(n):
        c = c + 1
        if i == k:
            break
        c = c + i * 10
    return c
""", [run("T", n=5, k=2), run("T", n=2, k=3), run("P", n=5, k=2), run("E", n=5, k=2)], exact_if=False)

NESTED_LOOPS = case("a tensor while nested in a tensor for", """
def prog(x, n, k):
    c = 0
    for i in range(n):
        j = 0
        while j < i:
            c = c + j
            j = j + 1
    return c
""", [run("T", n=4), run("P", n=4), run("E", n=4)])

COLLATZ = case("a tensor if nested in a tensor while", """
def prog(x, n, k):
    steps = 0
    m = n + 5
    while m != 1:
        if m % 2 == 0:
            m = m // 2
        else:
            m = 3 * m + 1
        steps = steps + 1
    return steps
""", [run("T", n=2), run("P", n=2)])

LOOP_TEMPORARY = case("temporaries in loop bodies (not loop variables)", """
def prog(x, n, k):
    s = 0.0
    for i in range(n):
        t = s * 0.5
        s = t + x
    j = 0
    while j < n:
        u = s * 2.0
        s = u - 1.0
        j = j + 1
    return s
""", [run("T", x=1.0, n=3), run("P", x=1.0, n=3), run("E", x=1.0, n=2)])

BREAK_WHILE = case("a break in a tensor while, with code before and after it", """
def prog(x, n, k):
    s = 0.0
    j = 0
    while j < n:
        j = j + 1
        s = s + x
        if s > 2.0:
            break
        s = s * 1.5
    return s, j
""", [run("T", x=1.0, n=5), run("N", x=1.0, n=5), run("P", x=1.0, n=5), run("E", x=1.0, n=5)], exact_if=False)

CONTINUE_FOR = case("a continue in a tensor for", """
def prog(x, n, k):
    c = 0
    s = x
    for i in range(n):
        if i % 2 == 0:
            continue
        c = c + i
        s = s + 1.0
    return c, s
""", [run("T", x=0.5, n=5), run("P", x=0.5, n=5), run("E", x=0.5, n=5)], exact_if=False)

BREAK_PYTHON = case("a break in a Python for: the flag stays a Python bool", """
def prog(x, n, k):
    c = 0
    for i in range(5):
        if i == k:
            break
        c = c + i + 1
    a = x
    if x > 0.0:
        a = a + 1.0
    return c, a
""", [run("X", x=1.0, k=2), run("P", x=1.0, k=3), run("E", x=1.0, k=2)], exact_if=False)

INNER_BREAK = case("a break leaves the inner loop only", """
def prog(x, n, k):
    c = 0
    for i in range(n):
        for j in range(n):
            if j == i:
                break
            c = c + 10
        c = c + 1
    return c
""", [run("T", n=4), run("P", n=4)], exact_if=False)

BREAK_AND_CONTINUE = case("break and continue in one loop", """
def prog(x, n, k):
    c = 0
    j = 0
    while j < n:
        j = j + 1
        if j == 4:
            break
        if j % 2 == 0:
            continue
        c = c + j
    return c, j
""", [run("T", n=6), run("P", n=6), run("E", n=6)], exact_if=False)

BREAK_IN_ELSE = case("a break in an else branch, after other statements", """
def prog(x, n, k):
    c = 0
    for i in range(n):
        c = c + 1
        if i < 2:
            c = c + 10
        else:
            c = c + 100
            break
        c = c + 1000
    return c
""", [run("T", n=5), run("P", n=5)], exact_if=False)

FIXED = {
    "if_stmt": [ONE_IF, PYTHON_IF, ONE_BRANCH, SAME_VARIABLES, NESTED_IFS],
    "loops": [TWO_LOOP_VARS, HALVINGS, RANGES, UNROLLED, FOR_BREAK, NESTED_LOOPS],
    "convert_if": [ONE_IF, PYTHON_IF, ONE_BRANCH, NESTED_IFS, TEMPORARY, ELIF],
    "convert_loops": [TWO_LOOP_VARS, RANGES, NESTED_LOOPS, COLLATZ, LOOP_TEMPORARY, UNROLLED],
    "lower_jumps": [BREAK_WHILE, CONTINUE_FOR, BREAK_PYTHON, INNER_BREAK, BREAK_AND_CONTINUE, BREAK_IN_ELSE],
}
RANDOM = {  # what the random programs of each task hold
    "if_stmt": dict(loops=False, jumps=False, max_depth=3),
    "loops": dict(loops=True, jumps=False, max_depth=2),
    "convert_if": dict(loops=False, jumps=False, max_depth=3),
    "convert_loops": dict(loops=True, jumps=False, max_depth=2),
    "lower_jumps": dict(loops=True, jumps=True, max_depth=2),
}


# --- random programs ---------------------------------------------------------------------------------
FLOATS = ("a", "b")


def _indent(lines):
    return ["    " + s for s in lines]


def _flat(stmts):
    return [line for s in stmts for line in s]


class ProgramGenerator:
    """Random ``prog(x, n, k)``: floats ``a``, ``b`` and an int ``c`` changed by nested statements.

    Loops always end: ``for`` over ``range`` of at most ``n``/``k``/5, ``while j < bound`` whose
    counter grows first thing in the body. A ``break`` tests only its loop's own counter (or the
    Python ``k``), and comes before any ``continue`` of its loop: a Python loop cannot stop on a
    tensor (TF raises), and a ``continue`` may depend on one.
    """

    def __init__(self, rng, loops=True, jumps=False, max_depth=2, max_stmts=2):
        self.rng, self.loops, self.jumps, self.max_depth, self.max_stmts = rng, loops, jumps, max_depth, max_stmts
        self.counter = 0

    def fresh(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    def pick(self, items):
        return items[int(self.rng.integers(len(items)))]

    def float_assign(self, scope):
        v = self.pick(FLOATS)
        w = "b" if v == "a" else "a"
        return [f"{v} = " + self.pick([f"{v} * 0.5 + x", f"{v} + {w} * 0.25", f"{v} - 1.0", f"{v} * 0.5 + 1.0",
                                        f"{v} + x * x", f"{w} - {v} * 0.5"])]

    def int_assign(self, scope):
        return [f"c = {self.pick(['c + 1', 'c * 2 % 7', 'c - 1', 'c + n'] + [f'c + {i}' for i in scope['indices']] * 2)}"]

    def temp_assign(self, scope):
        t, v = self.fresh("t"), self.pick(FLOATS)
        return [f"{t} = {self.pick(FLOATS)} * 2.0 + 0.5", f"{v} = {v} + {t} * 0.25"]

    def cond(self, scope):
        pool = ["x > 0.5", "x < 1.0", "n > 2", "n % 2 == 0", "k > 1", "k == 2", "a > 1.0", "b < a", "c % 2 == 0",
                "c > 3"]
        for i in scope["indices"]:
            pool += [f"{i} % 2 == 0", f"{i} > 1", f"{i} == k"]
        return self.pick(pool)

    def own_cond(self, own):
        return self.pick([f"{own} % 2 == 1", f"{own} > 1", f"{own} == k", f"{own} >= 2"])

    def block(self, scope, depth, n=None):
        n = int(self.rng.integers(1, self.max_stmts + 1)) if n is None else n
        return [self.stmt(scope, depth) for _ in range(n)]

    def stmt(self, scope, depth):
        kinds = ["float", "float", "int", "temp"]
        if depth < self.max_depth:
            kinds += ["if"] * 3
            if self.loops and scope["loops"] < 2:
                kinds += ["for", "while"]
        kind = self.pick(kinds)
        if kind == "if":
            return self.if_stmt(scope, depth)
        if kind == "for":
            return self.for_stmt(scope, depth)
        if kind == "while":
            return self.while_stmt(scope, depth)
        return {"float": self.float_assign, "int": self.int_assign, "temp": self.temp_assign}[kind](scope)

    def if_stmt(self, scope, depth):
        lines = [f"if {self.cond(scope)}:"] + _indent(_flat(self.block(scope, depth + 1)))
        r = self.rng.random()
        if r < 0.45:
            lines += ["else:"] + _indent(_flat(self.block(scope, depth + 1)))
        elif r < 0.6 and depth + 1 < self.max_depth:
            nested = self.if_stmt(scope, depth + 1)
            lines += ["el" + nested[0]] + nested[1:]
        return lines

    def loop_body(self, scope, depth, own, first):
        inner = dict(scope, loops=scope["loops"] + 1)
        body = ([first] if first else []) + self.block(inner, depth + 1)
        if self.jumps:
            kind = self.pick(["break", "continue", "both", "break", "continue", "none"])
            start = 1 if first else 0
            if kind in ("continue", "both"):
                test = self.own_cond(own) if kind == "both" else self.cond(inner)
                body.insert(int(self.rng.integers(start, len(body) + 1)), [f"if {test}:", "    continue"])
            if kind in ("break", "both"):
                at = start if kind == "both" else int(self.rng.integers(start, len(body) + 1))
                before = self.float_assign(scope) if self.rng.random() < 0.4 else []
                jump = [f"if {self.own_cond(own)}:"] + _indent(before + ["break"])
                if self.rng.random() < 0.3:
                    jump += ["else:"] + _indent(self.int_assign(inner))
                body.insert(at, jump)
            if kind != "none" and self.rng.random() < 0.5:
                body.append(self.float_assign(inner))
        return _flat(body)

    def for_stmt(self, scope, depth):
        i = self.fresh("i")
        args = self.pick(["n", "n", "k", "3", "1, n", "0, n, 2", "2, 5"])
        inner = dict(scope, indices=scope["indices"] + [i])
        return [f"for {i} in range({args}):"] + _indent(self.loop_body(inner, depth, i, None))

    def while_stmt(self, scope, depth):
        j = self.fresh("j")
        inner = dict(scope, indices=scope["indices"] + [j])
        return [f"{j} = 0", f"while {j} < {self.pick(['n', 'n', 'k', '3'])}:"] + \
            _indent(self.loop_body(inner, depth, j, [f"{j} = {j} + 1"]))

    def program(self):
        scope = {"indices": [], "loops": 0}
        body = ["a = x * 0.5", "b = 1.0", "c = 0"] + _flat(self.block(scope, 0, n=int(self.rng.integers(2, 4))))
        return "def prog(x, n, k):\n" + "\n".join(_indent(body + ["return a, b, c"])) + "\n"


NEEDS = {"if_stmt": ("if ",), "loops": ("for ", "while "), "convert_if": ("if ",),
         "convert_loops": ("for ", "while "), "lower_jumps": ("break", "continue")}


def random_case(rng, task, number):
    """A random program that holds what ``task`` converts (so that a blank answer fails it), and its runs."""
    source = ""
    while not any(word in line.split(":")[0] + ":" for line in source.splitlines()[1:] for word in NEEDS[task]):
        source = ProgramGenerator(rng, **RANDOM[task]).program()
    x = float(rng.choice([-1.0, -0.5, 0.25, 0.75, 1.5, 2.5]))
    n, k = int(rng.choice([0, 1, 2, 3, 3, 4, 4])), int(rng.integers(1, 4))
    traced = str(rng.choice(["T", "T", "X", "N", "P"]))   # (every fixed core has all-Python runs too)
    return case(f"random program #{number}", source, [run(traced, x, n, k), run("E", x, n, k)],
                exact_if=not RANDOM[task]["jumps"])


# --- plans ----------------------------------------------------------------------------------------------
def make_plan(seed, n=4):
    """Per task: its fixed core, then ``n`` random programs from ``seed``."""
    rng = np.random.default_rng(seed)
    tasks = []
    for task in TASKS:
        cases = [dict(c) for c in FIXED[task.name]] + [random_case(rng, task.name, k + 1) for k in range(n)]
        if task.name in RUNTIME_TASKS:
            for c in cases:
                c["converted"] = reference_conversion(c["source"])
        tasks.append({"name": task.name, "cases": cases})
    return {"tasks": tasks}


@functools.lru_cache(maxsize=None)
def _reference_notebook():
    """The solution notebook's setup and answer cells, run once in a namespace of this process."""
    from .. import notebooks
    from ..sandbox import REPO
    nb = notebooks.to_notebook(os.path.join(REPO, "solutions", NAME, f"{NAME}.py"))
    ids = ["setup"] + [t.cell for t in TASKS]
    cells = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c.source for c in nb.cells}
    namespace = {"__name__": "a4_reference"}
    for grade_id in ids:
        exec(compile(cells[grade_id], f"<A4 reference {grade_id}>", "exec"), namespace)  # noqa: S102
    return namespace


@functools.lru_cache(maxsize=512)
def reference_conversion(source):
    """``source`` converted by the reference converter of the notebook: the source of a ``def prog``."""
    import engine as tf
    ns = _reference_notebook()
    prog = worker.load_program(tf, source)
    return ns["MyAutoGraph"]().convert(prog).__ag_source__ + "\n"


# --- expected values (pristine engine, grader process) --------------------------------------------------
_EXPECTED = {}


def expected(task):
    import engine as tf
    out = []
    for c in task["cases"]:
        key = json.dumps([c["source"], c["runs"]], sort_keys=True)
        if key not in _EXPECTED:
            _EXPECTED[key] = worker.reference_runs(tf, c)
        out.append(_EXPECTED[key])
    return out


# --- comparison -----------------------------------------------------------------------------------------
def _describe_run(r):
    names = ("x", "n", "k")
    args = ", ".join(f"{name}=tf.constant({value}, {dtype})" if kind == "t" else f"{name}={value!r}"
                     for name, (kind, dtype, value) in zip(names, r["args"]))
    return ("called eagerly" if r["mode"] == "eager" else "traced by tf.function") + f" with {args}"


def _describe(c):
    return f"{c['label']}\n" + "".join("        " + line + "\n" for line in c["source"].rstrip().splitlines())


def _value(v):
    try:
        data = v["value"]["data"]
        shown = data[0] if len(data) == 1 else data[:4]
        return f"{v['dtype'] or 'Python'} {shown}"
    except (TypeError, KeyError, IndexError):
        return repr(v)[:60]


def _same_value(e, g):
    if not isinstance(g, dict) or not isinstance(g.get("value"), dict):
        return False
    if e["dtype"] is not None and g.get("dtype") is not None and e["dtype"] != g["dtype"]:
        return False
    ev, gv = worker.decode(e["value"]), worker.decode(g["value"])
    if isinstance(gv, str) or not isinstance(ev, np.ndarray) or ev.shape != gv.shape:
        return False
    return bool(np.all(np.abs(ev - gv) <= 1e-6 + 1e-5 * np.abs(ev)))


def _check_run(c, r, e, g):
    if isinstance(e, str):
        if g == e:
            return None
        got = f"your code raised {g[6:]}" if isinstance(g, str) and g.startswith("error:") else "it ran"
        return f"TF raises {e[6:]} here; {got}"
    if isinstance(g, str) and g.startswith("error:"):
        return f"your code raised {g[6:]}"
    if not isinstance(g, dict) or not isinstance(g.get("out"), list):
        return "malformed output"
    if len(g["out"]) != len(e["out"]):
        return f"expected {len(e['out'])} outputs, got {len(g['out'])}"
    for k, (ev, gv) in enumerate(zip(e["out"], g["out"])):
        if not _same_value(ev, gv):
            return f"output {k}: expected {_value(ev)}, got {_value(gv)}"
    if r["mode"] == "graph":
        ops = g.get("ops")
        if not isinstance(ops, list) or len(ops) != 2:
            return "malformed output"
        (ei, ew), (gi, gw) = e["ops"], ops
        if gw != ew:
            return (f"the graph should hold {ew} While op(s) (counted inside branches and loop bodies too), "
                    f"yours holds {gw}")
        if c.get("exact_if", True) and gi != ei:
            return f"the graph should hold {ei} If op(s) (counted inside branches and loop bodies too), yours holds {gi}"
        if not c.get("exact_if", True) and (gi == 0) != (ei == 0):
            return (f"the graph should hold {'no' if ei == 0 else 'some'} If ops (a tensor decides "
                    f"{'nowhere' if ei == 0 else 'somewhere'}), yours holds {gi}")
    return None


def check_case(name, c, exp, got):
    """None if every run of the program matches, else the first difference, naming the program and the run."""
    if not isinstance(got, list) or len(got) != len(exp):
        if isinstance(got, str) and got.startswith("error:"):
            return f"{_describe(c)}    your code raised {got[6:]}"
        return f"{_describe(c)}    malformed output"
    for r, e, g in zip(c["runs"], exp, got):
        message = _check_run(c, r, e, g)
        if message:
            return f"{_describe(c)}    {_describe_run(r)}: {message}"
    return None
