"""How the disguised copies in bench/similarity_data/ were made.

`python -m bench.similarity_disguise` writes them.

Each disguise is what a candidate does to hide a copy, done to the syntax tree so the copy
still parses: rename every name the code binds (not the names the problem forces), reformat
(other indentation, blank lines, comments, one statement split or joined), reorder the
functions and methods, add dead code, rewrite loops (`for` over a range or a list as a `while`
with an index, `x += 1` as `x = x + 1`), and all of these at once. The output is committed:
the labelled set is fixed data, and this module only says how it was made (running it again
rewrites the same files). The partial copies are written by hand.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from pathlib import Path

from grading.similarity import bound_names, forced_names

DATA = Path(__file__).parent / "similarity_data"
WORDS = (
    "store",
    "bucket",
    "tally",
    "slot",
    "entry",
    "thing",
    "acc",
    "part",
    "node",
    "mark",
    "pool",
    "ring",
    "seen",
    "cur",
    "box",
    "val",
    "tmp",
    "res",
    "walker",
    "probe",
    "cell",
    "data",
)


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.mapping.get(node.arg, node.arg)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self.mapping.get(node.attr, node.attr)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self.mapping.get(node.name, node.name)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self.mapping.get(node.name, node.name)
        return node


def rename(tree: ast.Module, forced: frozenset[str]) -> ast.Module:
    own = sorted((bound_names(ast.unparse(tree)) or frozenset()) - forced - {"self"})
    mapping = {
        name: f"{WORDS[i % len(WORDS)]}{i // len(WORDS) or ''}" for i, name in enumerate(own)
    }
    mapping = {k: v for k, v in mapping.items() if not k.startswith("__")}
    return _Rename(mapping).visit(tree)


def reorder(tree: ast.Module, forced: frozenset[str]) -> ast.Module:
    def flip(body: list[ast.stmt]) -> list[ast.stmt]:
        defs = [s for s in body if isinstance(s, ast.FunctionDef | ast.ClassDef)]
        rest = iter(reversed(defs))
        return [next(rest) if isinstance(s, ast.FunctionDef | ast.ClassDef) else s for s in body]

    tree.body = flip(tree.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            node.body = flip(node.body)
        elif isinstance(node, ast.FunctionDef):
            node.body = _swap_first_assignments(node.body)
    return tree


def _swap_first_assignments(body: list[ast.stmt]) -> list[ast.stmt]:
    """Swap the first two neighbouring assignments that do not read each other's targets."""
    for i in range(len(body) - 1):
        a, b = body[i], body[i + 1]
        if isinstance(a, ast.Assign | ast.AnnAssign) and isinstance(b, ast.Assign | ast.AnnAssign):
            written = {n.id for n in ast.walk(a) if isinstance(n, ast.Name)}
            read = (
                {n.id for n in ast.walk(b.value) if isinstance(n, ast.Name)} if b.value else set()
            )
            if not written & read:
                return [*body[:i], b, a, *body[i + 2 :]]
    return body


DEAD = (
    "_debug_steps = 0",
    "if False:\n    print('trace')",
    "_scratch = [x for x in range(0)]",
    "assert True",
    "_unused_total = len(str(0)) * 0",
)


def deadcode(tree: ast.Module, forced: frozenset[str]) -> ast.Module:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.For | ast.While) and len(node.body) >= 2:
            new: list[ast.stmt] = []
            for i, stmt in enumerate(node.body):
                new.append(stmt)
                if i % 2 == 0 and i < len(node.body) - 1 and not isinstance(stmt, ast.Return):
                    new.extend(ast.parse(DEAD[count % len(DEAD)]).body)
                    count += 1
            node.body = new
    helper = ast.parse("def _log_state(*parts):\n    return ' '.join(map(str, parts))\n").body
    tree.body = [*tree.body[:1], *helper, *tree.body[1:]]
    return tree


class _Loops(ast.NodeTransformer):
    def __init__(self) -> None:
        self.counter = 0

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        if isinstance(node.target, ast.Name):
            load = ast.Name(node.target.id, ast.Load())
            return ast.Assign([node.target], ast.BinOp(load, node.op, node.value), lineno=0)
        return node

    def visit_For(self, node: ast.For) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if node.orelse or not isinstance(node.target, ast.Name):
            return node
        if any(isinstance(n, ast.Continue) for n in ast.walk(node)):
            return node
        name = node.target.id
        it = node.iter
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and len(it.args) in (1, 2)
            and not it.keywords
        ):
            start = ast.unparse(it.args[0]) if len(it.args) == 2 else "0"
            stop = ast.unparse(it.args[-1])
            head = ast.parse(f"{name} = {start}\nwhile {name} < {stop}:\n    pass").body
            loop = head[1]
            assert isinstance(loop, ast.While)
            loop.body = [*node.body, *ast.parse(f"{name} = {name} + 1").body]
            return head
        if isinstance(it, ast.Name):
            self.counter += 1
            i = f"_i{self.counter}"
            head = ast.parse(f"{i} = 0\nwhile {i} < len({it.id}):\n    pass").body
            loop = head[1]
            assert isinstance(loop, ast.While)
            loop.body = [
                *ast.parse(f"{name} = {it.id}[{i}]").body,
                *node.body,
                *ast.parse(f"{i} = {i} + 1").body,
            ]
            return head
        return node


def loops(tree: ast.Module, forced: frozenset[str]) -> ast.Module:
    return _Loops().visit(tree)


def reformat_text(source: str) -> str:
    """Two-space indents, a blank line after every block opener, a comment on each def."""
    out: list[str] = []
    for line in source.splitlines():
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        text = "  " * depth + stripped
        if stripped.startswith("def "):
            out.append("  " * depth + "# helper")
        out.append(text)
        if stripped.endswith(":") and not stripped.startswith(("else", "elif", "try", "except")):
            out.append("")
    return "\n".join(out) + "\n"


Step = Callable[[ast.Module, frozenset[str]], ast.Module]
DISGUISES: dict[str, tuple[tuple[Step, ...], bool]] = {
    "rename": ((rename,), False),
    "reformat": ((), True),
    "reorder": ((reorder,), False),
    "deadcode": ((deadcode,), False),
    "loops": ((loops,), False),
    "all": ((rename, reorder, deadcode, loops), True),
}


def disguise(source: str, starter: str, how: str) -> str:
    steps, reformat = DISGUISES[how]
    tree = ast.parse(source)
    forced = forced_names(starter)
    for step in steps:
        tree = ast.fix_missing_locations(step(tree, forced))
    text = ast.unparse(tree) + "\n"
    return reformat_text(text) if reformat else text


def main(argv: list[str]) -> int:
    for problem in sorted(p for p in DATA.glob("*/*") if (p / "sources.txt").exists()):
        slug = problem.name
        starter = (Path("problems/bank") / slug / "starter.py").read_text()
        for stem in (problem / "sources.txt").read_text().split():
            source = (problem / "independent" / f"{stem}.py").read_text()
            for how in DISGUISES:
                out = problem / "copies" / f"{stem}__{how}.py"
                out.parent.mkdir(exist_ok=True)
                text = disguise(source, starter, how)
                ast.parse(text)  # a disguise must still be Python
                out.write_text(text)
                print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
