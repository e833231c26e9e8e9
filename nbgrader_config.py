"""nbgrader configuration for this course (used by `python -m autograder` and by JupyterLab's formgrader).

Sources are the assignments in solutions/, released into course/assignments/; grading happens in
grading/ (gradebook, submissions, feedback, and the exchange through which the assignment list hands
out released assignments), which is not committed. Set COURSE_GRADING_DIR to put it elsewhere.

`make lab` serves the repository root (nbgrader's formgrader needs the course root inside the server
root) and opens course/.
"""
import os

c = get_config()  # noqa: F821
_here = os.path.dirname(os.path.abspath(__file__))
_grading = os.path.abspath(os.environ.get("COURSE_GRADING_DIR") or os.path.join(_here, "grading"))
c.CourseDirectory.root = _here
c.CourseDirectory.course_id = "tf-internals"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = os.path.join("course", "assignments")
c.CourseDirectory.submitted_directory = os.path.join(_grading, "submitted")
c.CourseDirectory.autograded_directory = os.path.join(_grading, "autograded")
c.CourseDirectory.feedback_directory = os.path.join(_grading, "feedback")
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(_grading, "gradebook.db")
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "*.py"]
c.Exchange.root = os.path.join(_grading, "exchange")
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
