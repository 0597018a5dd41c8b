"""The import layers hold (issue 19): an AST walk over every module, in-function imports counted.

- ``engine`` (the rules) imports neither the computer players (``players``), the tools,
  the application layer, the handlers, nor any network library;
- ``players`` imports the rules only;
- ``app`` (the Telegram-free application layer) imports no ``telegram`` and no ``handlers``;
- ``handlers`` (Telegram, thin) import no ``storage``: ``app`` is the one door to state;
- ``handlers.platform`` (the plumbing every feature shares) imports no feature, neither its
  handlers (``handlers.table``, ``handlers.contest``, ``handlers.records``) nor its application
  services (``app.table``, ``app.contest``, ``app.records``);
- ``storage`` imports neither ``app`` nor ``handlers``; ``render`` (pictures) neither ``app``,
  ``handlers`` nor ``storage``; ``tools`` no ``handlers``;
- ``common`` (the bottom room every layer may import: metrics, faults) imports nothing of ours;
- ``webapp`` (the Mini App's server) imports ``app``, ``engine``, ``render`` and ``common``: no
  storage, no handlers, no ``telegram``;
- no two modules import each other, directly or around a longer loop.

``python -m tests.test_layers`` prints the figures docs/layers.md quotes (violations, cycles, largest
modules) and the files each traced change there would touch (:func:`named_in_code`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "players", "app", "tools", "handlers", "storage", "render", "common", "webapp")
OURS = PACKAGES
FEATURES = ("table", "contest", "records")
FEATURE_ROOMS = tuple(f"{layer}.{feature}" for layer in ("handlers", "app") for feature in FEATURES)
"""A feature's handlers and its application services: the shared plumbing imports neither."""
NETWORK = ("telegram", "websockets", "aiohttp")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module ``name`` imports, anywhere in the file; a known module where one is meant."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {t for t in targets if t != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def under(module: str, *roots: str) -> bool:
    return any(module == root or module.startswith(root + ".") for root in roots)


def violations(edges: dict[str, set[str]]) -> list[str]:
    found = []
    for source, targets in sorted(edges.items()):
        if under(source, "players"):  # the computer players: the rules only (OpenSpiel's bots/ beside games/)
            banned: tuple[str, ...] = ("tools", "app", "handlers", "storage", "render", "webapp", *NETWORK)
        elif under(source, "engine"):
            banned = (
                "players",
                "tools",
                "app",
                "handlers",
                "storage",
                "render",
                "webapp",
                "common",
                *NETWORK,
            )
        elif under(source, "app"):
            banned = ("handlers", "telegram")
        elif under(source, "handlers.platform"):
            banned = (
                "storage",
                *(f"{layer}.{feature}" for layer in ("handlers", "app") for feature in FEATURES),
            )
        elif under(source, "handlers"):
            banned = ("storage",)
        elif under(source, "storage"):
            banned = ("app", "handlers")
        elif under(source, "render"):
            banned = ("app", "handlers", "storage")
        elif under(source, "tools"):
            banned = ("handlers",)
        elif under(source, "common"):
            banned = OURS
        elif under(source, "webapp"):  # the Mini App: app, engine, render and common only (issue 42)
            banned = ("storage", "handlers", "telegram", "tools")
        else:
            continue
        found += [f"{source} -> {t}" for t in sorted(targets) if under(t, *banned)]
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(components)


TRACED = {"level-up table shape": "level_ups", "contest format": "swiss", "hand button": "autoplay"}
"""docs/layers.md's traced changes: the last instance of each kind of change, by name."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that are docstrings (of modules, classes, functions, attributes)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, statement in zip([None, *body], body, strict=False):
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
                continue
            documented = isinstance(before, ast.Assign | ast.AnnAssign)
            if documented or (before is None and not isinstance(node, ast.For | ast.While | ast.If)):
                found.add(id(statement.value))
    return found


def _words(node: ast.AST, docstrings: set[int]) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.alias):
        return [node.name]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
        return [node.value]
    return []


def named_in_code(pattern: str) -> list[str]:
    """The production modules whose code names ``pattern`` (any case): identifiers, imports and
    strings, not comments or docstrings, so prose that mentions an instance does not count."""
    wanted = re.compile(pattern, re.IGNORECASE)
    found = []
    for name, path in sorted(modules().items()):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        if any(wanted.search(word) for node in ast.walk(tree) for word in _words(node, docstrings)):
            found.append(name)
    return found


def test_layers_hold() -> None:
    assert violations(graph()) == []


def test_no_import_cycle() -> None:
    assert cycles(graph()) == []


STORE_NAMES = {"db", "_db"}
"""What the store is called where it is held: ``AppServices._db`` (private since issue 41), a
service's ``db`` (``TableService.db``, ``ContestStore.db``)."""


def store_reads(source: str) -> list[int]:
    """Lines where a module reads a store off another object (``services._db``, ``store.db``,
    ``context.services.tables.db``): the import rule cannot see a repository reached through an
    attribute. What an object keeps on ``self`` is its own (the monitor's probe)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in STORE_NAMES
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    ]


def test_handlers_never_read_the_store_off_the_services() -> None:
    """One door (issue 41): a handler (or the Mini App's server) asks an app service, never the
    store behind it, whatever the attribute path."""
    found = {
        name: lines
        for name, path in modules().items()
        if under(name, "handlers", "webapp") and (lines := store_reads(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_store_rule_sees_a_read() -> None:
    """The rule above catches each way a handler could reach the store, and lets ``self.db`` be."""
    source = "a = context.services._db\nb = services.db\nc = x.tables.db.users\nself.db = d\n"
    assert store_reads(source) == [1, 2, 3]


if __name__ == "__main__":
    edges = graph()
    print("violations:", *violations(edges), sep="\n  ")
    print("cycles:", *(" ⇄ ".join(c) for c in cycles(edges)), sep="\n  ")
    sizes = sorted(((len(p.read_text().splitlines()), n) for n, p in modules().items()), reverse=True)
    print("largest:", *(f"{lines:5} {name}" for lines, name in sizes[:10]), sep="\n  ")
    for change, pattern in TRACED.items():
        named = named_in_code(pattern)
        print(f"{change} ({pattern}, named in code): {len(named)}", *named, sep="\n  ")
