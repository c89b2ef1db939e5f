"""The shape of tokref and of tokgrade, checked: the rooms of docs/architecture.md and their rules.

- every module is short (at most MAX_LINES lines) and so is every function (MAX_FUNCTION
  lines), with no exception; the measure itself is checked on a function made to be too long;
- modules talk through public names only: no module imports another module's
  ``_private`` name, and no code reads ``obj._private`` unless that private name is its
  own module's (a class may use the private state of another instance of itself, and the
  base class calls the ``_hooks`` it declares);
- imports run down the floors of docs/architecture.md, never up, and every module of
  the package is on a floor.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "solutions" / "tokref"
DOC = ROOT / "docs" / "architecture.md"

MAX_LINES = 600
MAX_FUNCTION = 80



def modules() -> dict[str, Path]:
    """Dotted name inside tokref (``wordpiece.train``) → file."""
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts) or "__init__"] = path
    return out


def resolve(module: str, path: Path, node: ast.ImportFrom) -> str | None:
    """The tokref module an import reads from (None: outside tokref)."""
    if node.level == 0:
        if node.module and (node.module == "tokref" or node.module.startswith("tokref.")):
            return node.module.removeprefix("tokref").lstrip(".") or "__init__"
        return None
    package = module.split(".") if path.name == "__init__.py" and module != "__init__" else module.split(".")[:-1]
    if module == "__init__":
        package = []
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    name = ".".join([*base, *([node.module] if node.module else [])])
    return name or "__init__"


def imports_of(module: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported tokref module, name, line) for every ``from ... import name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = resolve(module, path, node)
            if target is not None:
                out.extend((target, a.name, node.lineno) for a in node.names)
    return out


def floors() -> dict[str, int]:
    """The floor of each module, read from the module map of docs/architecture.md: rows
    ``| floor | `module` | ... |``."""
    out = {}
    for m in re.finditer(r"^\|\s*(\d+)\s*\|\s*`([\w.]+)`", DOC.read_text(encoding="utf-8"), re.M):
        out[m.group(2).removeprefix("tokref.")] = int(m.group(1))
    return out


def floor_of(module: str, table: dict[str, int]) -> int:
    # A subpackage's modules share its floor unless the map names them.
    while module not in table and "." in module:
        module = module.rsplit(".", 1)[0]
    return table[module]


def test_every_module_is_short():
    long = {m: n for m, p in modules().items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them along a seam): {long}"


def long_functions(source: str, prefix: str = "") -> dict[str, int]:
    """{name: lines} of the functions (methods and nested ones too) over MAX_FUNCTION lines."""
    return {f"{prefix}{node.name}": node.end_lineno - node.lineno + 1
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION}


def test_the_function_length_measure_sees_long_functions():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION))
    code = f"class C:\n    def method(self):\n    {body.replace(chr(10) + '    ', chr(10) + '        ')}\n" \
           f"def short():\n    return 1\n\ndef long():\n{body}    return 0\n"
    assert long_functions(code) == {"method": MAX_FUNCTION + 1, "long": MAX_FUNCTION + 2}


def test_every_function_is_short():
    long = {}
    for m, p in modules().items():
        long.update(long_functions(p.read_text(encoding="utf-8"), f"{m}."))
    assert not long, f"functions over {MAX_FUNCTION} lines (split them along a seam): {long}"


def test_no_module_imports_another_modules_private_names():
    bad = []
    for m, p in modules().items():
        for target, name, line in imports_of(m, p):
            if name.startswith("_") and target != m:
                bad.append(f"{p.relative_to(ROOT)}:{line} imports {name} from {target}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def own_private_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, class attributes, and
    attributes it assigns on ``self``/``cls``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return {n for n in out if n.startswith("_")}


def test_no_code_reads_private_attributes_of_another_module():
    bad = []
    for m, p in modules().items():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        own = own_private_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            attr = node.attr
            if not attr.startswith("_") or (attr.startswith("__") and attr.endswith("__")):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if attr in own:
                continue
            bad.append(f"{p.relative_to(ROOT)}:{node.lineno} reads .{attr} of {ast.unparse(owner)}")
    assert not bad, "private attributes of other modules read:\n" + "\n".join(bad)


def test_imports_run_down_the_floors_of_the_architecture_map():
    table = floors()
    assert table, f"{DOC.relative_to(ROOT)} has no module map"
    mods = modules()
    unplaced = [m for m in mods if m != "__init__" and not _placed(m, table)]
    assert not unplaced, f"modules missing from the map in {DOC.name}: {unplaced}"
    up = []
    for m, p in mods.items():
        if m == "__init__" or m.endswith("__init__"):
            continue
        for target, name, line in imports_of(m, p):
            if target == m or target.startswith(m + ".") or m.startswith(target + "."):
                continue  # a package and its own modules
            if target == "__init__":
                up.append(f"{m} imports {name} from the top-level package")
                continue
            if floor_of(target, table) > floor_of(m, table):
                up.append(f"{m} (floor {floor_of(m, table)}) imports {target} "
                          f"(floor {floor_of(target, table)}) at line {line}")
    assert not up, "imports that run up a floor:\n" + "\n".join(up)


def _placed(m: str, table: dict[str, int]) -> bool:
    try:
        floor_of(m, table)
    except KeyError:
        return False
    return True


@pytest.mark.parametrize("name", ["tokref", "tokref.bytelevel", "tokref.wordpiece", "tokref.unigram",
                                  "tokref.explorer", "tokref.bpe", "tokref.merges", "tokref.base"])
def test_every_public_name_imports(name):
    import importlib

    mod = importlib.import_module(name)
    missing = [n for n in getattr(mod, "__all__", []) if not hasattr(mod, n)]
    assert not missing, f"{name}.__all__ lists names it does not have: {missing}"


# Every public name of tokref before the reshaping (its modules' ``__all__``): the reshaping
# kept the public API, and this keeps it kept.
PUBLIC_API = {
    'tokref': ['BPETokenizer', 'ByteLevelBPETokenizer', 'CharTokenizer', 'NotTrainedError', 'Token', 'TokenizationStats', 'Tokenizer', 'TokenizerFileError', 'UnigramTokenizer', 'WordPieceTokenizer', 'WordTokenizer', 'load', 'load_openai_encoding', 'measure'],
    'tokref.analysis': ['SupportsEncode', 'TokenizationStats', 'measure'],
    'tokref.base': ['NotTrainedError', 'Token', 'Tokenizer', 'TokenizerFileError', 'check_ids', 'check_text', 'check_texts', 'load'],
    'tokref.bpe': ['BPETokenizer', 'EOW', 'apply_merges', 'word_counts'],
    'tokref.bytelevel': ['ByteLevelBPETokenizer', 'CL100K_PATTERN', 'GPT2_PATTERN', 'GPT2_PATTERN_STDLIB', 'O200K_PATTERN', 'bpe_encode_piece', 'bytes_to_unicode', 'count_pretokens', 'load_openai_encoding', 'load_tiktoken_ranks', 'split_special'],
    'tokref.char': ['CharTokenizer', 'DEFAULT_SPECIAL_TOKENS', 'build_char_vocab', 'decode_chars', 'encode_chars', 'unk_rate'],
    'tokref.corpus': ['Work', 'list_works', 'load_text', 'load_texts'],
    'tokref.explorer': ['CompareExplorer', 'DEFAULT_SAMPLES', 'MergeExplorer', 'MergeStepLike', 'SupportsMergeTrace', 'SupportsTokenize', 'TradeoffExplorer', 'js_regex', 'set_mode'],
    'tokgrade.grading': ['ASCII_LETTERS', 'CASES_ENV', 'HiddenTest', 'RECORD_MIME', 'check_outcomes', 'check_same', 'collect_hidden_tests', 'hidden_test', 'random_corpus', 'random_prose', 'random_text', 'random_texts', 'run_cases'],
    'tokref.merges': ['MergeStep', 'PairCounts', 'best_pair', 'count_pairs', 'merge_pair', 'train_merges'],
    'tokgrade.typed_json': ['MAX_DEPTH', 'Opaque', 'dumps_value', 'from_json', 'loads_value', 'to_json'],
    'tokref.unigram': ['BYTE_PIECES', 'EMStep', 'UNK_PENALTY', 'UnigramTokenizer', 'WS', 'digamma', 'forward_backward', 'm_step', 'nbest', 'normalize', 'sample', 'seed_pieces', 'segmentations', 'viterbi'],
    'tokref.word': ['WORD_PATTERN', 'WordTokenizer', 'build_word_vocab', 'count_words', 'detokenize', 'encode_words', 'oov_rate', 'split_words'],
    'tokref.wordpiece': ['BERT_SPECIAL_TOKENS', 'WordPieceEncoding', 'WordPieceStep', 'WordPieceTokenizer', 'bert_normalize', 'bert_pre_tokenize', 'bert_pre_tokenize_with_offsets', 'best_wordpiece_pair', 'count_wordpiece_stats', 'is_bert_punctuation', 'is_bert_removed', 'is_cjk', 'join_words', 'merge_wordpiece_pair', 'train_wordpiece', 'wordpiece_decode', 'wordpiece_score', 'wordpiece_split'],
}


@pytest.mark.parametrize("module", sorted(PUBLIC_API))
def test_the_public_api_is_kept(module):
    import importlib

    mod = importlib.import_module(module)
    gone = [n for n in PUBLIC_API[module] if n not in getattr(mod, "__all__", ()) or not hasattr(mod, n)]
    assert not gone, f"{module} no longer exports {gone}"


def test_the_options_table_lists_every_option():
    """docs/architecture.md's table of train/encode/decode options names every parameter
    each tokenizer's method has (so the table cannot fall behind the code)."""
    import inspect

    import tokref

    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines()
            if re.match(r"\| `\w+Tokenizer`", line)]
    assert len(rows) == 6, rows
    missing = []
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        cls = getattr(tokref, re.match(r"`(\w+)`", cells[0]).group(1))
        for method, cell in zip(("train", "encode", "decode"), cells[1:]):
            listed = set(re.findall(r"`(\w+)", cell))
            params = set(inspect.signature(getattr(cls, method)).parameters) - {"self", "texts", "text", "ids"}
            missing += [f"{cls.__name__}.{method}({p})" for p in sorted(params - listed)]
    assert not missing, f"options missing from the table in docs/architecture.md: {missing}"


# ---------------------------------------------------------------------------------------
# tokgrade, the grading runtime: a package of its own, shipped unchanged
# ---------------------------------------------------------------------------------------

RUNTIME = ROOT / "solutions" / "tokgrade"


def test_the_grading_runtime_is_standard_library_only_with_relative_imports():
    import sys

    bad = []
    for path in sorted(RUNTIME.glob("*.py")):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES, path.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue  # a relative import: another module of tokgrade
            # IPython: imported inside a function that runs only in the grading kernel
            bad += [f"{path.name}:{node.lineno} imports {n}" for n in names
                    if n.split(".")[0] not in sys.stdlib_module_names and n != "IPython.display"]
    assert not bad, "tokgrade imports only the standard library and itself (relatively):\n" + "\n".join(bad)
    assert sorted(p.name for p in RUNTIME.iterdir() if p.suffix == ".py") == [
        "__init__.py", "grading.py", "selfcheck.py", "typed_json.py"]


def test_the_reference_neither_imports_nor_holds_the_runtime():
    assert not {"grading.py", "selfcheck.py", "typed_json.py"} & {p.name for p in PKG.glob("*.py")}
    bad = [f"{p.relative_to(ROOT)}:{node.lineno}" for p in PKG.rglob("*.py")
           for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
           if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tokgrade" for a in node.names))
           or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tokgrade")]
    assert not bad, f"tokref imports tokgrade: {bad}"
