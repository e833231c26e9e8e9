"""Grade one notebook: assemble the code to run, run it in the sandbox, compare outside it.

The code that runs is built from the **release** notebook: its locked cells come from
the release (a student cannot change the setup), its solution cells and any extra cells
from the submission, and its test cells are not run at all when grading (the grader
computes the scores itself). Edited, deleted or stripped test cells are reported as
tampering; nbgrader's OverwriteCells restores them in the gradebook's copy.
"""
import os

import nbformat

from . import a1, sandbox
from .sandbox import REPO


def _meta(cell):
    return cell.metadata.get("nbgrader") or {}


def release_notebook(assignment="A1"):
    return nbformat.read(os.path.join(REPO, "course", "assignments", assignment, f"{assignment}.ipynb"), as_version=4)


def source_cells(assignment="A1"):
    """grade_id -> source of the reference (solutions/) notebook's cells."""
    from . import notebooks
    nb = notebooks.to_notebook(os.path.join(REPO, "solutions", assignment, f"{assignment}.py"))
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


def grade_notebook(path, seed, n=4, item_timeout=10.0, total_timeout=60.0, hide=(), assignment="A1", pool=None):
    """Per-task results: {task: {"score", "points", "messages"}}, plus "_notes"/"_isolation".

    ``pool``: a :class:`sandbox.WorkerPool` shared by a batch (else one is made for this call)."""
    sub = nbformat.read(path, as_version=4)
    rel = release_notebook(assignment)
    cells, solutions, extras, notes = assemble(sub, rel)
    plan = a1.make_plan(seed, n=n)
    ref = source_cells(assignment)
    for task in plan["tasks"]:
        task["inject"] = [ref[c] for c in a1.INJECT.get(task["name"], [])]
    plan["cells"] = cells
    done, cells_failed, run_notes, isolation = sandbox.run(plan, item_timeout=item_timeout,
                                                           total_timeout=total_timeout, hide=hide, pool=pool)
    extra_bad = sorted({u for s in extras for u in a1.forbidden_uses(s)})
    results = {}
    for (name, cell_id, test_id, points), task in zip(a1.TASKS, plan["tasks"]):
        ev = done.get(name)
        msgs = []
        bad = sorted(set(a1.forbidden_uses(solutions.get(cell_id, ""))) | set(extra_bad))
        if bad:
            results[name] = {"score": 0.0, "points": points, "test_cell": test_id, "messages": [
                f"this task must reimplement autodiff: your code uses {', '.join(bad)} "
                f"(the engine's own autodiff or a dynamic lookup), which is not allowed"]}
            continue
        if ev is None or ev.get("outputs") is None:
            msg = (ev or {}).get("error") or "not graded: the worker stopped before this task"
            results[name] = {"score": 0.0, "points": points, "test_cell": test_id, "messages": [msg]}
            continue
        if ev.get("trips"):
            results[name] = {"score": 0.0, "points": points, "test_cell": test_id, "messages": [
                "your code called the engine's own GradientTape or gradient functions while this task "
                "was graded; this task is about reimplementing them"]}
            continue
        outputs, exp = ev["outputs"], a1.expected(task)
        if not isinstance(outputs, list) or len(outputs) != len(task["cases"]):
            results[name] = {"score": 0.0, "points": points, "test_cell": test_id, "messages": ["malformed output"]}
            continue
        if name == "grads":  # one point per op
            per_op = {}
            for case, e, g in zip(task["cases"], exp, outputs):
                m = a1.check_case(name, case, e, g[:len(e)] if isinstance(g, list) else g)
                per_op.setdefault(case["op"], []).append(m)
                if m and len([x for x in per_op[case["op"]] if x]) == 1:
                    msgs.append(m)
            unit = points / len(per_op)
            score = sum(unit * sum(m is None for m in ms) / len(ms) for ms in per_op.values())
        else:
            fails = [a1.check_case(name, c, e, g) for c, e, g in zip(task["cases"], exp, outputs)]
            score = points * sum(m is None for m in fails) / len(fails)
            msgs = [f"case {k + 1}: {m}" for k, m in enumerate(fails) if m][:3]
        results[name] = {"score": round(score, 2), "points": points, "test_cell": test_id, "messages": msgs}
    for i, err in sorted(cells_failed.items()):
        notes.append(f"code cell {i} raised {err}")
    results["_notes"] = notes + run_notes
    results["_isolation"] = isolation
    return results


def report(results):
    lines, total, maxp = [], 0.0, 0
    for name, *_ in a1.TASKS:
        r = results[name]
        total += r["score"]
        maxp += r["points"]
        lines.append(f"{name:15s} {r['score']:5.2f} / {r['points']}")
        lines.extend(f"    - {m}" for m in r["messages"])
    lines.append(f"{'total':15s} {total:5.2f} / {maxp}")
    lines.extend(f"note: {n}" for n in results.get("_notes", []))
    return "\n".join(lines)
