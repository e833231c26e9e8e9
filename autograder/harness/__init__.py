"""Harnesses: the sandbox side of each assignment (one module per assignment, named like it: ``a1.py``).

A harness module is copied with the engine into the grading sandbox and runs there,
beside the student's code. It holds:

``HARNESS``
    ``{task name: function(tf, ctx, ns, case, state) -> JSON-able output}``: runs the
    student's definitions (in the namespace ``ns`` of their notebook) on one generated
    ``case`` and returns what they produced. It never sees an expected value.
``setup(tf, state)`` (optional)
    called once before the student's cells run, with the ``state`` dict every harness call gets
    (A5 splits the CPU into logical devices and keeps its strategy there).

It imports only the standard library, NumPy, the (sandbox's) engine and ``common.py``.
The grader side of an assignment (``autograder/assignments/<name>.py``) may import the
harness too, to run the same programs on the pristine engine.
"""
