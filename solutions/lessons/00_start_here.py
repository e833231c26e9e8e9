# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Start here: how TensorFlow works, built piece by piece
#
# This course teaches TensorFlow's core mechanisms by having you build them. Everything runs on the
# course's engine (`import engine as tf`), a small TensorFlow written in Python on NumPy that follows
# TensorFlow 2's semantics: its values, dtypes, errors, tracing and gradients. You read how a mechanism
# works in a lesson, see it working (pictures of graphs and tapes, timings measured on your machine),
# then rebuild it in an assignment, where your version replaces the engine's own and runs real TF
# programs.
#
# **The path.** Work through it in order; each lesson prepares the assignment after it. The list below
# is computed from the course itself (the lessons in this folder, the assignments' specs), so it is
# always current. A lesson's time is an estimate made here: its prose at 150 words a minute, plus 10
# minutes for each function its exercises ask you to write. An assignment's is its author's estimate.

# %%
import glob
import os
import re

from autograder import assignments

for path in sorted(glob.glob("[1-9]*.py")):                 # the lessons beside this notebook, in order
    text = open(path, encoding="utf-8").read()
    title = re.search(r"^# # (.+)$", text, re.M).group(1)     # "10. Tensors and eager execution (syllabus 1.6, 1.7)"
    prose = [ln for ln in text.splitlines() if ln.startswith("# ") and not ln.startswith("# %%")]
    words = sum(len(ln.split()) - 1 for ln in prose)
    to_write = text.count("# YOUR CODE HERE")
    minutes = round(words / 150 + 10 * to_write)
    print(f"lesson {title}: about {minutes} min ({words} words, {to_write} functions to write)")
    for name in re.findall(r"\*\*(A\d), ", text):           # the assignments its "Build it yourself" cell names
        spec = assignments.get(name)
        points = sum(t.points for t in spec.TASKS)
        print(f"    then {name}: {spec.TITLE.split(':')[0]} ({points:g} points, {spec.HOURS})")

# %% [markdown]
# **How to work.**
#
# * Lessons (`course/lessons/`): run each one top to bottom (*Run All*). Each ends its material with a
#   few exercises: complete the functions in the exercise cell (they say `raise NotImplementedError()`),
#   then run the self-check cell after it, which tells you, exercise by exercise, what is right and
#   what is not yet.
# * Assignments: fetch each from the *Assignment List* (Nbgrader menu); it lands in a folder of its name
#   (`A1/`) in the course root, where you work, check, *Validate* and *Submit* (`course/assignments/` holds
#   the release itself, which the Assignment List hands out). One cell per task, each followed by a
#   visible test. Check your notebook at any time; the
#   grader runs hidden, randomized tests on an engine from which the mechanism you build is absent:

# %%
import subprocess
import sys

print("self-check an assignment, in the folder the Assignment List fetched it into (A1/):")
print("    python -m autograder check A1.ipynb        (in a notebook cell: !python -m autograder check A1.ipynb)")
listing = subprocess.run([sys.executable, "-m", "autograder", "list"], capture_output=True, text=True, timeout=60)
print(listing.stdout)
