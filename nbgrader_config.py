"""nbgrader configuration for this course (used by `python -m autograder` and by JupyterLab's formgrader).

Sources are the assignments in solutions/, released into course/assignments/; grading happens
in grading/ (gradebook, submissions, feedback), which is not committed.
"""
import os

c = get_config()  # noqa: F821
_here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = _here
c.CourseDirectory.course_id = "tf-internals"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = os.path.join("course", "assignments")
c.CourseDirectory.submitted_directory = os.path.join("grading", "submitted")
c.CourseDirectory.autograded_directory = os.path.join("grading", "autograded")
c.CourseDirectory.feedback_directory = os.path.join("grading", "feedback")
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(_here, "grading", "gradebook.db")
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "*.py"]
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
