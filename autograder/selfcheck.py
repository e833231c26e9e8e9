"""The self-check cell of a lesson's exercises: tells the student, exercise by exercise, what is still wrong.

A lesson's exercise is an answer cell (nbgrader ``solution: true``) that defines something the
student completes, usually a function whose body is ``raise NotImplementedError()`` in the
released lesson. The locked cell after it calls :func:`run_checks` with one check per exercise::

    run_checks({
        "1. the float64 sum (1.6)": lambda: check(float(exercise_1()) == 15.0, "expected 15.0"),
    })

Each check either returns (right), raises ``NotImplementedError`` (not done yet),
``AssertionError`` (wrong, with the reason) or anything else (the student's code failed). The
cell never raises, so *Run All* goes through a lesson whose exercises are not done, and it
prints ``exercises OK`` only when every exercise is right.
"""

__all__ = ["run_checks", "check"]


def check(condition, message):
    """``assert condition, message`` that also works under ``python -O``."""
    if not condition:
        raise AssertionError(message)


def run_checks(checks, out=print):
    """Run ``{name: check}``; print one line per exercise and the verdict (nothing is returned, so the
    cell shows only those lines)."""
    done = 0
    for name, run in checks.items():
        try:
            run()
        except NotImplementedError:
            out(f"[ ]  {name}: not done yet (replace `raise NotImplementedError()` in its cell)")
        except AssertionError as error:
            out(f"[x]  {name}: not right yet: {error}")
        except Exception as error:  # noqa: BLE001 - the student's code may raise anything
            out(f"[x]  {name}: your code raised {type(error).__name__}: {str(error)[:300]}")
        else:
            done += 1
            out(f"[ok] {name}")
    out("exercises OK" if done == len(checks) else f"{done} of {len(checks)} exercises done")
