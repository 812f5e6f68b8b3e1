"""The repository explains itself.

Every file that a docstring or comment in certify/ or tests/ cites is in the repository (nothing
outside it, such as the design notes the kernel was planned from, is cited), every citation of
the form "docs/<name>.md, section 'TITLE'" names a heading of that file, and README.md points to
the documents under docs/.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from conftest import ROOT

SCANNED = ("certify", "tests")

# A cited file: anything reached through "../" (outside the repository), any Markdown file, and
# any path with an extension under one of the repository's top-level folders. The lookbehind keeps
# a match from starting inside a longer path.
_START = r"(?<![\w./*-])"
_CITED_FILE = re.compile(
    _START + r"(?:"
    r"(?:\.\./)+[\w.-][\w./-]*[\w-]"                                 # outside the repository
    r"|[\w.-][\w./-]*\.md\b"                                         # Markdown
    r"|(?:certify|tests|docs|proofs|examples|\.ci)/[\w./-]*\.[A-Za-z]\w*\b"  # repository paths
    r")")
# "docs/<name>.md, section 'TITLE'" or "docs/<name>.md, sections 'A' and 'B'"
_SECTION_CITATION = re.compile(r"(docs/[\w.-]+\.md),\s*sections?\s+((?:'[^']+'(?:\s*,\s*|\s+and\s+)?)+)")
_TITLE = re.compile(r"'([^']+)'")


def python_files():
    for top in SCANNED:
        yield from sorted((ROOT / top).rglob("*.py"))


def docstrings_and_comments(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and every docstring (module, class, function) in ``source``."""
    found = [(token.start[0], token.string)
             for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                found.append((first.lineno, first.value.value))
    return found


def cited_files(text: str) -> list[str]:
    return _CITED_FILE.findall(text)


def in_repository(cited: str) -> bool:
    """True if ``cited`` names a file of the repository (a bare <name>.md may also be under docs/)."""
    if cited.startswith("../"):
        return False
    candidates = [ROOT / cited] + ([ROOT / "docs" / cited] if "/" not in cited else [])
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_relative_to(ROOT) and resolved.is_file():
            return True
    return False


def section_citations(text: str) -> list[tuple[str, str]]:
    """(file, title) for every "docs/<name>.md, section 'TITLE'" in ``text`` (line breaks allowed)."""
    flat = " ".join(text.split())
    return [(match.group(1), title)
            for match in _SECTION_CITATION.finditer(flat)
            for title in _TITLE.findall(match.group(2))]


def headings(markdown: str) -> set[str]:
    """The titles of the ATX headings of a Markdown text, outside fenced code blocks."""
    titles, fenced = set(), False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            titles.add(match.group(1))
    return titles


def broken_sections(text: str) -> list[str]:
    """Every "docs/<name>.md, section 'TITLE'" in ``text`` whose file or heading does not exist, as messages."""
    problems = []
    for cited, title in section_citations(text):
        path = ROOT / cited
        if not path.is_file():
            problems.append(f"cites {cited}, which is not in the repository")
        elif title not in headings(path.read_text(encoding="utf-8")):
            problems.append(f"cites {cited}, section '{title}', but {cited} has no such heading")
    return problems


def broken_citations(text: str) -> list[str]:
    """Every cited file that is not in the repository and every broken section citation, as messages."""
    problems = [f"cites {cited}, which is not in the repository"
                for cited in cited_files(text) if not in_repository(cited)]
    return problems + [problem for problem in broken_sections(text) if problem not in problems]


def test_every_cited_file_and_section_exists():
    problems = []
    for path in python_files():
        for line, text in docstrings_and_comments(path.read_text(encoding="utf-8")):
            problems += [f"{path.relative_to(ROOT)}:{line}: {problem}" for problem in broken_citations(text)]
    assert not problems, "\n".join(problems)


def test_section_citations_in_the_documents_name_headings():
    """README.md and docs/ may mention files outside the repository, but their section citations must hold."""
    problems = [f"{path.relative_to(ROOT)}: {problem}"
                for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
                for problem in broken_sections(path.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


def test_the_kernel_cites_the_mathematics():
    """Not vacuous: the kernel's docstrings do cite sections of docs/mathematics.md, and they are found."""
    cited = {title
             for path in (ROOT / "certify" / "kernel").glob("*.py")
             for _, text in docstrings_and_comments(path.read_text(encoding="utf-8"))
             for file, title in section_citations(text) if file == "docs/mathematics.md"}
    assert {"Box bounds of section A.6", "Claims by theorem", "Arb balls"} <= cited


def test_the_checker_finds_broken_citations():
    source = '\n'.join([
        '"""Derived in DESIGN.md and in ../shared/papers/paper.txt."""',
        "# see docs/mathematics.md, section 'No such section' and docs/missing.md",
        "def f():",
        '    """As in docs/mathematics.md,',
        "    section 'Purity gap'; tests/no_such_module.py; README.md; numbers-and-checking.md.\"\"\"",
        "x = 'DESIGN.md'  # a string that is no docstring is not scanned",
    ])
    problems = [problem for _, text in docstrings_and_comments(source) for problem in broken_citations(text)]
    assert sorted(problems) == sorted([
        "cites DESIGN.md, which is not in the repository",
        "cites ../shared/papers/paper.txt, which is not in the repository",
        "cites docs/missing.md, which is not in the repository",
        "cites docs/mathematics.md, section 'No such section', but docs/mathematics.md has no such heading",
        "cites tests/no_such_module.py, which is not in the repository",
    ]), problems


def test_the_readme_points_to_the_documents():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for document in ("docs/mathematics.md", "docs/numbers-and-checking.md"):
        assert document in readme, document
        assert (ROOT / document).is_file(), document
    layout = re.search(r"^## Layout\n(.*?)(?=^## )", readme, re.S | re.M).group(1)
    assert "docs/" in layout
