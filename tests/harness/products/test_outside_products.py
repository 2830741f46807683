"""The project's own packages name no outside product: one comes in through a plug-in's entry points.

A comment or a docstring may name one as an example; code, strings and
page templates may not, so a product's wording, paths or rules never live in
the harness.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.core import registry

PROJECT_PACKAGES = ("harness", "stories", "oracle", "calibration")
TEXT_SUFFIXES = (".html", ".js", ".css", ".json", ".toml", ".txt")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    for node in ast.walk(tree):  # attribute docstrings: a bare string right after an assignment
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for before, after in zip(body, body[1:], strict=False):
                if isinstance(before, ast.Assign | ast.AnnAssign) and isinstance(after, ast.Expr):
                    if isinstance(after.value, ast.Constant):
                        found.add(id(after.value))
    return found


def _words_in_code(source: str) -> list[str]:
    """Every identifier, import name and string of a module, less its docstrings (comments are not in the tree)."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    words: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            words.append(node.value)
        elif isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, ast.alias):
            words.append(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            words.append(node.module)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words.append(node.name)
        elif isinstance(node, ast.arg):
            words.append(node.arg)
    return words


def named_outside_prose(name: str, root: Path = Path(".")) -> list[str]:
    """The files of the project's own packages whose code, strings or templates name ``name``."""
    named: list[str] = []
    for package in PROJECT_PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if path.suffix == ".py":
                hit = any(name in word.lower() for word in _words_in_code(path.read_text()))
            elif path.suffix in TEXT_SUFFIXES:
                hit = name in path.read_text().lower()
            else:
                continue
            if hit:
                named.append(str(path))
    return named


@pytest.mark.parametrize("product", ["paperclip", "vibe"])
def test_the_project_names_an_outside_product_only_in_prose(product: str) -> None:
    assert named_outside_prose(product) == []


def test_the_scan_finds_a_product_named_in_code_but_not_in_a_comment_or_docstring(tmp_path: Path) -> None:
    package = tmp_path / "harness"
    package.mkdir()
    (package / "prose.py").write_text('"""Paperclip, as an example."""\n# Paperclip again\nX = 1\n"""Paperclip."""\n')
    assert named_outside_prose("paperclip", tmp_path) == []
    (package / "code.py").write_text('ROUTE = "/api/paperclip"\n')
    (package / "page.html").write_text("<p>Paperclip</p>\n")
    assert named_outside_prose("paperclip", tmp_path) == [str(package / "code.py"), str(package / "page.html")]


def test_outside_products_come_in_through_their_plug_ins() -> None:
    assert registry.product("paperclip").driver.partition(":")[0].split(".")[0] == "everyday_paperclip"
    assert registry.product("vibe-kanban").driver.partition(":")[0].split(".")[0] == "everyday_vibe_kanban"
