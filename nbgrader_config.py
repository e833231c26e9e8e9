"""nbgrader configuration for this course (used by `python -m autograder` and by JupyterLab's formgrader).

Sources are the assignments in solutions/, released into course/assignments/; grading happens in
grading/ (gradebook, submissions, feedback, and the exchange through which the assignment list hands
out released assignments), which is not committed. Set COURSE_GRADING_DIR to put it elsewhere.

Autograding (the formgrader's Autograde button, `nbgrader autograde`) goes through the course's
sandboxed grader, configured by the same function as `python -m autograder grade`
(autograder.batch.configure): nbgrader's own Execute, which would run a student's code in a
Jupyter kernel with the instructor's rights, is not in the chain.

`make lab` serves the repository root (nbgrader's formgrader needs the course root inside the server
root) and opens course/.
"""
import os
import sys

c = get_config()  # noqa: F821
_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:  # the autograder package, also where the project is not installed
    sys.path.insert(0, _here)
from autograder.batch import COURSE_ID, configure, db_url, grading_dir  # noqa: E402

_grading = grading_dir()
c.CourseDirectory.root = _here
c.CourseDirectory.course_id = COURSE_ID
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = os.path.join("course", "assignments")
c.CourseDirectory.submitted_directory = os.path.join(_grading, "submitted")
c.CourseDirectory.autograded_directory = os.path.join(_grading, "autograded")
c.CourseDirectory.feedback_directory = os.path.join(_grading, "feedback")
c.CourseDirectory.db_url = db_url(_grading)
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "*.py"]
c.Exchange.root = os.path.join(_grading, "exchange")
configure(c, _grading)
