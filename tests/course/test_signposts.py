"""Every assignment is signposted: a row in the course README (points, time) and a pointer from its lesson."""
import glob
import os
import re

import pytest

from autograder import assignments
from autograder.sandbox import REPO

README = open(os.path.join(REPO, "course", "README.md"), encoding="utf-8").read()


@pytest.mark.parametrize("name", assignments.names())
def test_course_readme_row_and_lesson_pointer(name):
    spec = assignments.get(name)
    row = next((ln for ln in README.splitlines() if ln.strip().startswith(f"| {name} ")), None)
    assert row is not None, f"course/README.md has no row for {name}"
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert cells[2] == f"{sum(t.points for t in spec.TASKS):g}", row
    assert cells[3] == spec.HOURS.replace("-", "–"), row
    lesson = glob.glob(os.path.join(REPO, "course", "lessons", f"{cells[4]}_*.py"))
    assert lesson, row
    text = open(lesson[0], encoding="utf-8").read()
    assert re.search(rf"\*\*{name}, [^*]+\*\* \({cells[2]} points, {cells[3]}\)", text), \
        f"{os.path.basename(lesson[0])} does not point to {name} with its points and time"
