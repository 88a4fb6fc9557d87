"""`chartc diff`: specs and data read from git, compared chart by chart.

The end-to-end tests make a throwaway git repository in a temporary folder,
commit a spec with its data, change the data and the style, and check the
report names exactly those changes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands.cli import main
from chartc.commands.diff import diff_charts, diff_rows, diff_values, report_html, show_value

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SPEC = """\
title: Points and a trend
data: {path: data/points.csv}
encoding:
  x: {field: x}
  y: {field: y}
layers:
  - mark: point
  - trend:
      method: linear
      style: {color: gray}
"""

POINTS = "x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n"
# row 2 changed, two rows added
POINTS_AFTER = "x,y\n1,2.1\n2,4.4\n3,6.2\n4,7.8\n5,10.1\n6,12.0\n7,13.9\n"

BARS = """\
title: Bars
data:
  values: [{k: a, v: 1}, {k: b, v: 3}]
mark: bar
encoding: {x: k, y: v}
"""


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                            env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                                 "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
                                 "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
                                 "PATH": "/usr/bin:/bin:/usr/local/bin"})
    return result.stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository with one commit: specs/trend.yaml (+ its CSV) and specs/bars.yaml."""
    root = tmp_path / "repo"
    (root / "specs" / "data").mkdir(parents=True)
    (root / "specs" / "trend.yaml").write_text(SPEC)
    (root / "specs" / "data" / "points.csv").write_text(POINTS)
    (root / "specs" / "bars.yaml").write_text(BARS)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    monkeypatch.chdir(root)
    return root


def change_data_and_style(root: Path) -> None:
    (root / "specs" / "data" / "points.csv").write_text(POINTS_AFTER)
    (root / "specs" / "trend.yaml").write_text(SPEC.replace("color: gray", "color: red"))


def test_no_change_exits_0(repo, capsys):
    assert main(["diff"]) == 0
    assert capsys.readouterr().out.splitlines() == [msg.diff_summary("HEAD", "working tree", 0, 0, 0, 2)]


def test_diff_reports_exactly_the_data_and_style_changes(repo, capsys):
    change_data_and_style(repo)
    assert main(["diff"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"specs/trend.yaml: spec: {msg.diff_value_changed('layers[1].trend.style.color', 'gray', 'red')}"
    assert lines[1] == f"specs/trend.yaml: data: {msg.diff_rows(1, 2, 0, 5, 7)}"
    assert re.fullmatch(r"specs/trend\.yaml: fit layers\[1\]: r2 0\.99\d+ -> 0\.99\d+, intercept \S+ -> \S+, "
                        r"slope \S+ -> \S+, n 5 -> 7", lines[2]), lines[2]
    assert lines[3:] == [msg.diff_summary("HEAD", "working tree", 1, 0, 0, 1)]


def test_diff_between_two_commits_and_restricted_to_a_path(repo, capsys):
    change_data_and_style(repo)
    git(repo, "commit", "-qam", "second")
    assert main(["diff", "HEAD~1", "HEAD", "specs/bars.yaml"]) == 0
    assert main(["diff", "HEAD~1", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "specs/trend.yaml: spec: layers[1].trend.style.color: gray -> red" in out
    assert msg.diff_summary("HEAD~1", "HEAD", 1, 0, 0, 1) in out
    assert main(["diff", "HEAD"]) == 0  # the working tree is HEAD now


def test_diff_from_a_subfolder_with_relative_paths(repo, monkeypatch):
    change_data_and_style(repo)
    monkeypatch.chdir(repo / "specs")
    report = diff_charts("HEAD", None, ["trend.yaml"])
    assert [chart.path for chart in report.charts] == ["specs/trend.yaml"]


def test_diff_dot_at_the_root_and_in_a_subfolder(repo, monkeypatch, capsys):
    change_data_and_style(repo)
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "bars.yaml").write_text(BARS)  # ignored: not a chart of the repository
    assert main(["diff"]) == 1
    expected = capsys.readouterr().out
    assert main(["diff", "."]) == 1
    assert capsys.readouterr().out == expected
    monkeypatch.chdir(repo / "specs")
    assert main(["diff", "."]) == 1
    assert capsys.readouterr().out == expected
    assert main(["diff", ".."]) == 1
    assert capsys.readouterr().out == expected


def test_explicit_paths_with_dot_dot_from_a_subfolder(repo, monkeypatch, capsys):
    change_data_and_style(repo)
    (repo / "specs" / "sub").mkdir()
    monkeypatch.chdir(repo / "specs" / "sub")
    assert main(["diff", "../trend.yaml", "../../specs/bars.yaml"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == msg.diff_summary("HEAD", "working tree", 1, 0, 0, 1)
    (repo / "docs").mkdir()
    monkeypatch.chdir(repo / "docs")
    assert [chart.path for chart in diff_charts("HEAD", None, ["../specs"]).charts] == ["specs/trend.yaml"]


def test_diff_between_two_revisions_with_a_path_from_a_subfolder(repo, monkeypatch, capsys):
    change_data_and_style(repo)
    git(repo, "commit", "-qam", "second")
    (repo / "docs").mkdir()
    monkeypatch.chdir(repo / "docs")
    assert main(["diff", "HEAD~1", "HEAD", "../specs/bars.yaml"]) == 0
    assert main(["diff", "HEAD~1", "HEAD", "../specs"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == msg.diff_summary("HEAD~1", "HEAD", 1, 0, 0, 1)
    monkeypatch.chdir(repo / "specs")
    assert [chart.path for chart in diff_charts("HEAD~1", "HEAD", ["trend.yaml"]).charts] == ["specs/trend.yaml"]
    assert diff_charts("HEAD~1", "HEAD", ["."]).unchanged == 1


def test_no_specs_folder_says_what_to_pass(repo, monkeypatch, capsys):
    (repo / "docs").mkdir()
    monkeypatch.chdir(repo / "docs")
    assert main(["diff"]) == 2
    assert msg.diff_no_specs_folder(str((repo / "docs").resolve())) in capsys.readouterr().err


def test_a_path_outside_the_repository_is_a_usage_error(repo, tmp_path, capsys):
    root = str(repo.resolve())
    (tmp_path / "elsewhere.yaml").write_text(BARS)
    assert main(["diff", "../elsewhere.yaml"]) == 2
    assert msg.diff_path_outside_repository("../elsewhere.yaml", root) in capsys.readouterr().err
    assert main(["diff", "HEAD", "HEAD", str(tmp_path / "elsewhere.yaml")]) == 2
    assert msg.diff_path_outside_repository(str(tmp_path / "elsewhere.yaml"), root) in capsys.readouterr().err


OTHER = """\
title: Something else entirely
data:
  values: [{day: "2024-01-01", n: 10}, {day: "2024-01-02", n: 12}, {day: "2024-01-03", n: 9}]
mark: {type: line, point: true}
encoding:
  x: {field: day, type: temporal, title: Day}
  y: {field: n, title: Visitors}
"""


def test_added_and_removed_charts(repo, capsys):
    (repo / "specs" / "bars.yaml").unlink()
    (repo / "specs" / "new.yaml").write_text(OTHER)
    assert main(["diff"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["specs/bars.yaml: removed", "specs/new.yaml: added",
                     msg.diff_summary("HEAD", "working tree", 0, 1, 1, 1)]


def test_a_moved_spec_is_a_rename_not_a_removal_and_an_addition(repo, capsys):
    (repo / "specs" / "sub").mkdir()
    (repo / "specs" / "bars.yaml").rename(repo / "specs" / "sub" / "bars.yaml")
    assert main(["diff"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"specs/sub/bars.yaml: {msg.diff_renamed_from('specs/bars.yaml')}",
        msg.diff_summary("HEAD", "working tree", 0, 0, 0, 1, renamed=1)]


def test_a_renamed_and_edited_spec_is_compared_with_its_old_self(repo, capsys):
    (repo / "specs" / "bars.yaml").unlink()
    (repo / "specs" / "new.yaml").write_text(BARS.replace("title: Bars", "title: New"))
    (repo / "specs" / "other.yaml").write_text(OTHER)  # unlike bars.yaml: a plain addition
    assert main(["diff"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"specs/new.yaml: {msg.diff_renamed_from('specs/bars.yaml')}",
        "specs/new.yaml: spec: title: Bars -> New",
        "specs/other.yaml: added",
        msg.diff_summary("HEAD", "working tree", 0, 1, 0, 1, renamed=1)]
    page = report_html(diff_charts("HEAD", None))
    assert f"specs/new.yaml · {msg.diff_renamed_from('specs/bars.yaml')}" in page


def test_a_change_that_breaks_the_chart_is_reported_with_its_diagnostic(repo):
    (repo / "specs" / "bars.yaml").write_text(BARS.replace("y: v", "y: nope"))
    report = diff_charts()
    (chart,) = report.charts
    assert chart.changes[0] == "spec: " + msg.diff_value_changed("encoding.y", "v", "nope")
    assert any(line.startswith("does not compile at working tree: specs/bars.yaml:5:") and "nope" in line
               for line in chart.changes), chart.changes


def test_data_file_of_a_revision_is_read_from_git_not_the_disk(repo):
    """HEAD~1 vs HEAD, with the working tree changed again: only git's versions count."""
    change_data_and_style(repo)
    git(repo, "commit", "-qam", "second")
    (repo / "specs" / "data" / "points.csv").write_text("x,y\n1,1\n2,2\n")
    report = diff_charts("HEAD~1", "HEAD")
    assert f"data: {msg.diff_rows(1, 2, 0, 5, 7)}" in report.charts[0].changes


def test_comment_only_change(repo):
    (repo / "specs" / "bars.yaml").write_text("# a comment\n" + BARS)
    (chart,) = diff_charts().charts
    assert chart.changes == [msg.diff_text_only()]


def test_html_report_is_self_contained_with_before_and_after(repo, tmp_path, capsys):
    change_data_and_style(repo)
    page_file = tmp_path / "report.html"
    assert main(["diff", "--html", str(page_file)]) == 1
    page = page_file.read_text()
    assert page.count('src="data:image/svg+xml;base64,') == 2
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")
    # and a browser holds it to that: no script runs, nothing loads but its own styles and data: images
    assert ("<meta http-equiv=\"Content-Security-Policy\" "
            "content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">") in page
    assert "layers[1].trend.style.color: gray -&gt; red" in page


def test_html_report_escapes_titles(repo):
    (repo / "specs" / "bars.yaml").write_text(BARS.replace("title: Bars", 'title: "</h2><script>x()</script>"'))
    page = report_html(diff_charts())
    assert "<script>x()" not in page and "&lt;script&gt;" in page


def test_unknown_revision_or_path_is_a_usage_error(repo, capsys):
    assert main(["diff", "no-such-rev"]) == 2
    assert main(["diff", "HEAD", "HEAD", "nowhere/"]) == 2
    assert "chartc: error:" in capsys.readouterr().err


def test_outside_a_repository_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["diff"]) == 2
    assert msg.diff_not_a_repository(str(tmp_path.resolve())) in capsys.readouterr().err


# --------------------------------------------------------------- unit level

def test_structural_diff_of_spec_values():
    before = {"title": "A", "layers": [{"mark": "point"}, {"trend": {"method": "linear", "style": {"dash": [6, 4]}}}],
              "legend": {"position": "top-left"}}
    after = {"title": "A", "layers": [{"mark": "point"}, {"trend": {"method": "poly", "order": 2, "style": {}}}],
             "width": 400}
    assert diff_values(before, after) == [
        msg.diff_value_changed("layers[1].trend.method", "linear", "poly"),
        msg.diff_value_removed("layers[1].trend.style.dash", "[6, 4]"),
        msg.diff_value_added("layers[1].trend.order", "2"),
        msg.diff_value_removed("legend", '{"position": "top-left"}'),
        msg.diff_value_added("width", "400"),
    ]


def test_structural_diff_of_lists_finds_inserted_items():
    assert diff_values({"t": [1, 2, 3]}, {"t": [1, 9, 2, 3]}) == [msg.diff_value_added("t[1]", "9")]
    assert diff_values({"t": ["a", "b"]}, {"t": ["a", "c", "d"]}) == [
        msg.diff_value_changed("t[1]", "b", "c"), msg.diff_value_added("t[2]", "d")]


def test_values_are_shown_unambiguously():
    assert show_value("gray") == "gray"
    assert show_value("1") == '"1"' and show_value(1) == "1"
    assert show_value("true") == '"true"' and show_value(True) == "true"
    assert show_value("a -> b") == '"a -> b"'
    assert show_value(None) == "null"


def test_row_diff_counts():
    rows = [{"x": i, "y": i * 2} for i in range(5)]
    assert diff_rows(rows, rows) is None
    changed = [dict(r) for r in rows]
    changed[1]["y"] = 99
    assert diff_rows(rows, changed + [{"x": 9, "y": 9}]) == msg.diff_rows(1, 1, 0, 5, 6)
    assert diff_rows(rows, rows[1:]) == msg.diff_rows(0, 0, 1, 5, 4)
    widened = [{**r, "z": 0} for r in rows]
    assert diff_rows(rows, widened) == msg.diff_columns("added", ["z"])
