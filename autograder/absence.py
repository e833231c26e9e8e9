"""Remove a mechanism from an engine copy: what the sandbox runs while that mechanism is graded.

A student who rebuilds ``Session.run``'s executor must not be able to call the engine's
own. Rather than looking for forbidden names in their code (which costs honest students
points and misses ``getattr`` tricks), the grader gives the sandbox an engine copy in which
the reference implementation is *not there*: its definitions are cut out of the source
files and replaced by stubs that raise ``NotImplementedError``. The rest of the engine
imports and runs as usual; the student's implementation is plugged in through the seam.

``ABSENT`` in an assignment's spec says what to cut::

    {"engine/client/executor_seam.py": ["GraphExecutor"],          # a stub that raises
     "engine/framework/executor.py": ["compile_plan", "Plan.run"],  # a method, too
     "engine/framework/optimizer/constant_folding.py":
         {"run": "def run(program, report):\\n    return program"}}  # or a replacement

Only top-level definitions (functions, classes, assignments to a name) and methods of
top-level classes can be cut. A name that is not defined where the spec says is an
error: a spec cannot silently go stale when the engine is refactored.

Some pieces are not named definitions (the registry's gradient functions are handed to
``register_op``, many as lambdas). For those a dict may hold ``"__end__"``: source
appended to the module, run once when it is imported, which takes them out of the
tables that hold them (A1 replaces every registered gradient that way).
"""
import ast
import os

__all__ = ["remove_definitions", "apply"]


def _stub_source(name, assignment, kind):
    message = (f"{name} is absent from this engine: assignment {assignment} asks you to build it, so the "
               f"grader runs an engine without the reference version (plug yours in through its seam).")
    short = name.rsplit(".", 1)[-1]
    if kind == "class":
        return (f"class {short}:\n    \"\"\"(absent while {assignment} is graded)\"\"\"\n\n"
                f"    def __init__(self, *args, **kwargs):\n        raise NotImplementedError({message!r})\n")
    return (f"def {short}(*args, **kwargs):\n    \"\"\"(absent while {assignment} is graded)\"\"\"\n"
            f"    raise NotImplementedError({message!r})\n")


def _defines(node, name):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


def _replacement(node, name, spec_value, assignment):
    if isinstance(spec_value, str):
        body = ast.parse(spec_value).body
    else:
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        body = ast.parse(_stub_source(name, assignment, kind)).body
    for new in body:
        ast.copy_location(new, node)
        if isinstance(new, (ast.FunctionDef, ast.ClassDef)) and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            new.decorator_list = [d for d in node.decorator_list if _keeps(d)]
    return body


def _keeps(decorator):
    """Decorators that change what a name *is* (a method into a property or a staticmethod) stay on the stub."""
    return isinstance(decorator, ast.Name) and decorator.id in ("property", "staticmethod", "classmethod")


def remove_definitions(source, names, assignment, filename="<engine>"):
    """``source`` with each definition in ``names`` cut out (a list: stubs; a dict: name -> replacement source)."""
    tree = ast.parse(source, filename)
    items = names.items() if isinstance(names, dict) else ((n, None) for n in names)
    appended = []
    for name, value in items:
        if name == "__end__":
            appended = ast.parse(value, filename).body
            continue
        owner, _, member = name.rpartition(".")
        scope = tree.body
        if owner:
            cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner), None)
            if cls is None:
                raise KeyError(f"{filename}: no top-level class {owner!r} (to remove {name!r} from)")
            scope = cls.body
        target = member
        index = next((i for i, n in enumerate(scope) if _defines(n, target)), None)
        if index is None:
            raise KeyError(f"{filename}: {name!r} is not defined there, so it cannot be removed")
        scope[index:index + 1] = _replacement(scope[index], name, value, assignment)
    tree.body.extend(appended)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def apply(engine_root, absent, assignment):
    """Cut ``absent`` (``{"engine/<path>.py": names}``) out of the engine copy at ``engine_root`` (in place)."""
    for path, names in sorted((absent or {}).items()):
        rel = path[len("engine/"):] if path.startswith("engine/") else path
        file = os.path.join(engine_root, rel)
        with open(file, encoding="utf-8") as f:
            source = f.read()
        new = remove_definitions(source, names, assignment, filename=path)
        with open(file, "w", encoding="utf-8") as f:
            f.write(new)
