"""A clone stands alone: no file in the repository refers to a path outside it, every Markdown file
it names exists, and the links of README.md and docs/ resolve."""
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".md", ".h", ".cpp", ".py", ".pyi", ".sh", ".txt", ".cmake", ".toml", ".yml", ".yaml",
                 ".json", ".in", ".hlo", ""}
OUTSIDE = re.compile(r"\.\./shared|/work/|\bshared/(spec|DESIGN)|\bspec/(README|tiled|npu|xla)")
MARKDOWN_NAME = re.compile(r"(?<![\w/.-])((?:\.\.?/)*[\w./-]*?[\w-]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tracked_files() -> list[pathlib.Path]:
    try:
        names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, check=True,
                               capture_output=True, text=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(REPO)) for p in REPO.rglob("*") if "build" not in p.parts]
    files = [REPO / n for n in names if n and (REPO / n).is_file()]
    return [f for f in files if f.suffix in TEXT_SUFFIXES and "fixtures" not in f.parts
            and "seeds" not in f.parts]


def test_no_file_refers_to_a_path_outside_the_repository():
    found = []
    for path in tracked_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), 1):
            if OUTSIDE.search(line) and path.name != "test_repository_references.py":
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)


def test_every_markdown_file_named_exists():
    basenames = {p.name for p in REPO.rglob("*.md") if "build" not in p.relative_to(REPO).parts}
    missing = []
    for path in tracked_files():
        if path.name == "test_repository_references.py":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), 1):
            for name in MARKDOWN_NAME.findall(line):
                if "/" in name.strip("./"):
                    # relative to the repository, to the file, or (generators, mkdocs.yml) to a page of docs/
                    bases = [REPO, path.parent, REPO / "docs", *(d for d in (REPO / "docs").iterdir() if d.is_dir())]
                    candidates = [REPO / name.lstrip("./")] + [base / name for base in bases]
                    if not any(c.resolve().is_file() for c in candidates):
                        missing.append(f"{path.relative_to(REPO)}:{number}: {name}")
                elif pathlib.PurePath(name).name not in basenames:
                    missing.append(f"{path.relative_to(REPO)}:{number}: {name}")
    assert not missing, "Markdown files named but not in the repository:\n" + "\n".join(missing)


def test_links_of_the_readme_and_the_docs_resolve():
    pages = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            file_part = target.split("#")[0]
            if not (page.parent / file_part).resolve().exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
            elif not (page.parent / file_part).resolve().is_relative_to(REPO):
                broken.append(f"{page.relative_to(REPO)}: {target} (outside the repository)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_every_page_of_the_docs_can_be_reached():
    """Each page is in the site's navigation (mkdocs.yml) or linked from a page: a page nobody can
    find does not help. New pages: add them to mkdocs.yml's nav (notes: to docs/notes/index.md)."""
    docs = REPO / "docs"
    reached = set()
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    reached |= {(docs / m).resolve() for m in re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.MULTILINE)}
    for page in [REPO / "README.md", *docs.rglob("*.md")]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z]+:", target) and not target.startswith("#"):
                reached.add((page.parent / target.split("#")[0]).resolve())
    orphans = [str(p.relative_to(REPO)) for p in sorted(docs.rglob("*.md"))
               if p.resolve() not in reached and p != docs / "index.md"]
    assert not orphans, "pages no navigation entry or link leads to: " + ", ".join(orphans)
