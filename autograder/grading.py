"""Grade one notebook: assemble the code to run, run it in the sandbox, compare outside it.

The code that runs is built from the **release** notebook: its locked cells come from
the release (a student cannot change the setup), its solution cells and any extra cells
from the submission, and its test cells are not run at all when grading (the grader
computes the scores itself). Edited, deleted or stripped test cells are reported as
tampering; nbgrader's OverwriteCells restores them in the gradebook's copy.
"""
import contextlib
import functools
import os

import nbformat

from . import assignments, sandbox
from .sandbox import REPO


def _meta(cell):
    return cell.metadata.get("nbgrader") or {}


def release_notebook(assignment="A1"):
    return nbformat.read(os.path.join(REPO, "course", "assignments", assignment, f"{assignment}.ipynb"), as_version=4)


def source_cells(assignment="A1"):
    """grade_id -> source of the reference (solutions/) notebook's cells.

    Parsed once per version of the file (a batch grades every submission against the same one)."""
    path = os.path.join(REPO, "solutions", assignment, f"{assignment}.py")
    return dict(_parsed_source_cells(path, os.stat(path).st_mtime_ns))


@functools.lru_cache(maxsize=8)
def _parsed_source_cells(path, mtime_ns):
    from . import notebooks
    nb = notebooks.to_notebook(path)
    return {_meta(c).get("grade_id"): c.source for c in nb.cells if _meta(c).get("grade_id")}


def assemble(sub, rel, include_tests=False):
    """Returns (cells to run, solution cell sources by id, extra cell sources, tampering notes)."""
    rel_cells = [c for c in rel.cells if c.cell_type == "code"]
    rel_ids = {_meta(c).get("grade_id"): c for c in rel_cells}
    test_sources = {c.source.strip() for c in rel_cells if _meta(c).get("grade")}
    by_id, extras, anchor = {}, {}, None
    for c in sub.cells:
        if c.cell_type != "code":
            continue
        gid = _meta(c).get("grade_id")
        if gid in rel_ids:
            by_id[gid] = c
            anchor = gid
        elif c.source.strip() in test_sources or not c.source.strip():
            continue
        else:
            extras.setdefault(anchor, []).append(c.source)
    notes, cells, solutions = [], [], {}
    for c in extras.get(None, []):
        cells.append(c)
    for rc in rel_cells:
        m, gid = _meta(rc), _meta(rc).get("grade_id")
        sc = by_id.get(gid)
        if m.get("grade"):
            if sc is None:
                notes.append(f"test cell {gid!r} is missing or lost its metadata: restored")
            elif sc.source.strip() != rc.source.strip():
                notes.append(f"test cell {gid!r} was edited: restored")
            elif _meta(sc).get("points") != m.get("points"):
                notes.append(f"test cell {gid!r} had its points changed: restored")
            if include_tests:
                cells.append(rc.source)
        elif m.get("solution"):
            src = sc.source if sc is not None else ""
            if sc is None:
                notes.append(f"answer cell {gid!r} is missing")
            solutions[gid] = src
            cells.append(src)
        else:
            if sc is not None and sc.source.strip() != rc.source.strip():
                notes.append(f"locked cell {gid!r} was edited: the original was used")
            cells.append(rc.source)
        cells.extend(extras.get(gid, []))
    return cells, solutions, [s for v in extras.values() for s in v], notes


def as_python(source):
    """A cell's source as Jupyter runs it: IPython's magics (``%%time``, ``%matplotlib``, ``!ls``) become
    ``get_ipython()`` calls, which the sandbox answers (``worker.py``); plain Python is unchanged."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - whatever IPython cannot transform is run as it is (and fails there)
        return source


def prepare_plan(spec, cells, seed, n):
    """The plan the sandbox runs: the spec's generated inputs, the notebook's cells, the reference injections."""
    plan = spec.make_plan(seed, n=n)
    ref = source_cells(spec.NAME)
    for task in plan["tasks"]:
        task["inject"] = [ref[c] for c in spec.INJECT.get(task["name"], [])]
    plan["cells"] = [as_python(c) for c in cells]
    plan["harness"] = spec.HARNESS
    plan.update(getattr(spec, "LIMITS", {}))
    return plan


def _failed(task, message):
    return {"score": 0.0, "points": task.points, "test_cell": task.test_cell, "messages": [message]}


def grade_notebook(path, seed, n=4, item_timeout=10.0, total_timeout=60.0, assignment="A1", pool=None,
                   require_isolation=True):
    """Per-task results: {task: {"score", "points", "messages"}}, plus "_notes"/"_isolation".

    ``pool``: a :class:`sandbox.WorkerPool` for this assignment, shared by a batch (else one is made
    for this call, refusing to run without namespaces unless ``require_isolation`` is False: a
    student's self-check of their own code)."""
    spec = assignments.get(assignment)
    sub = nbformat.read(path, as_version=4)
    rel = release_notebook(spec.NAME)
    cells, _, _, notes = assemble(sub, rel)
    plan = prepare_plan(spec, cells, seed, n)
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(sandbox.WorkerPool(absent=spec.ABSENT, assignment=spec.NAME,
                                                          require_isolation=require_isolation))
        done, cells_failed, run_notes, isolation = sandbox.run(
            plan, item_timeout=item_timeout, total_timeout=total_timeout, pool=pool)
    results = {}
    for task, planned in zip(spec.TASKS, plan["tasks"]):
        ev = done.get(task.name)
        if ev is None or ev.get("outputs") is None:
            results[task.name] = _failed(task, (ev or {}).get("error") or
                                         "not graded: the worker stopped before this task")
            continue
        outputs, exp = ev["outputs"], spec.expected(planned)
        if not isinstance(outputs, list) or len(outputs) != len(planned["cases"]):
            results[task.name] = _failed(task, "malformed output")
            continue
        scorer = getattr(spec, "score", None)
        if scorer is not None:
            score, msgs = scorer(task.name, planned["cases"], exp, outputs, task.points)
        else:
            score, msgs = assignments.default_score(spec, task.name, planned["cases"], exp, outputs, task.points)
        results[task.name] = {"score": round(min(max(score, 0.0), task.points), 2), "points": task.points,
                              "test_cell": task.test_cell, "messages": list(msgs)}
    for i, err in sorted(cells_failed.items()):
        notes.append(f"code cell {i} raised {err}")
    if isolation != "namespaces":
        run_notes.append("this machine gives no private namespaces: your code ran with limits but could see the "
                         "machine (fine for a self-check of your own code; grading refuses to run like this)")
    results["_notes"] = notes + run_notes
    results["_isolation"] = isolation
    return results


def total(results, assignment="A1"):
    """The sum of the task scores in ``results`` (as ``grade_notebook`` returns them)."""
    return round(sum(results[t.name]["score"] for t in assignments.get(assignment).TASKS), 2)


def report(results, assignment="A1"):
    lines, total, maxp = [], 0.0, 0
    for name, *_ in assignments.get(assignment).TASKS:
        r = results[name]
        total += r["score"]
        maxp += r["points"]
        lines.append(f"{name:15s} {r['score']:5.2f} / {r['points']}")
        lines.extend(f"    - {m}" for m in r["messages"])
    lines.append(f"{'total':15s} {total:5.2f} / {maxp}")
    lines.extend(f"note: {n}" for n in results.get("_notes", []))
    return "\n".join(lines)
