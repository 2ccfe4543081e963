"""summary.md keeps the `backquoted` names of a Next step as code spans and escapes the rest."""

from reports.markdown import md_with_code


def test_backquoted_names_stay_code_and_the_rest_is_escaped():
    assert md_with_code("offer `dropped-frames` (docs/x.md): 2 *more*") == "offer `dropped-frames` (docs/x.md): 2 \\*more\\*"
    assert md_with_code("one ` alone") == "one \\` alone"
