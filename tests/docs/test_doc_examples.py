"""Every console example and Python snippet of README.md and docs/ runs, and prints what the page
shows (conventions: tools/docs/doc_examples.py, docs/development.md "Examples that run")."""
import pytest

import doc_examples

PAGES = doc_examples.documented_pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(doc_examples.REPO)) for p in PAGES])
def test_examples_of_the_page_run_as_shown(page, tessera_cli, json_validator):
    problems = doc_examples.Page(page, tessera_cli, json_validator=json_validator).run()
    assert not problems, "\n\n".join(problems) + (
        "\n\nIf the change is deliberate, rewrite the shown output and review the diff:\n"
        f"  python3 tools/docs/doc_examples.py --tessera {tessera_cli} --update {page}")


def test_examples_that_do_not_run_are_rare():
    skipped = [block for page in PAGES for block in doc_examples.blocks_of(page) if block.not_run]
    # Each of these needs what a test run lacks (a TPU program and its compiler, tpu-mlir and a
    # model) or rebuilds everything; a new one is a reason to make an example runnable instead.
    assert len(skipped) <= 18, "\n".join(f"{b.where()}: {b.not_run}" for b in skipped)
    assert all(b.language == "console" or b.language == "python" for b in skipped)


def test_conventions_hold_for_the_helpers(tmp_path):
    assert doc_examples.output_matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert doc_examples.output_matches(["a", "...", "b"], ["a", "b"])
    assert doc_examples.output_matches(["error: ... column 3"], ["error: bad at column 3"])
    assert not doc_examples.output_matches(["a"], ["a", "b"])
    assert not doc_examples.output_matches(["17"], ["18"])
    page = tmp_path / "page.markdown"
    page.write_text("<!-- not run: why -->\n```console\n$ false\n```\n\n```console\n$ echo \\\n  hi\nhi\n```\n")
    blocks = doc_examples.blocks_of(page)
    assert blocks[0].not_run == "why" and blocks[1].not_run is None
    assert doc_examples.commands_of(blocks[1])[0].expected == ["hi"]
