"""The nbgrader assignments: source/ is sound, and exercises/ is exactly what nbgrader
generates from it, with nothing of the solutions or hidden tests left in it."""

from __future__ import annotations

import ast
import gzip
import io
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tokref.batch
import tokref.bytelevel
import tokref.char
import tokref.languages
import tokref.merges
import tokref.superword
import tokref.ngram
import tokref.training
import tokref.unigram
import tokref.word
import tokref.wordpiece
from tokgrade.grading import collect_hidden_tests
from conftest import ASSIGNMENTS, BY_ID, ROOT

# Every assignment of source/assignments.json (conftest checks they are source/'s folders).
SOURCE = [ROOT / "source" / a / f"{a}.ipynb" for a in ASSIGNMENTS]
EXERCISES = ROOT / "exercises"
FORBIDDEN = ["BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "tokref"]
# The reference solution of an assignment, where tokref has one: a module, whose function
# of the same name each function of the notebook must match, or a dict {function: its
# reference}, where the reference is a function, or the signature the notebook's function
# must have when the hidden tests call the reference differently (the comment says how).
# An assignment without an entry has its functions' docstrings checked only.
REFERENCE = {
    "chars": tokref.char,
    "words": tokref.word,
    "bpe": {
        "count_pairs": tokref.merges.count_pairs,
        "merge_pair": "(word, pair)",  # tokref.merges.merge_pair(word, pair, pair[0] + pair[1])
        # base = sorted characters + ["</w>"]; train_merges(id words, base, n_merges), merges
        # mapped back to (symbols[a], symbols[b]); cases where a merged string repeats are dropped
        "train_bpe": "(word_counts, n_merges)",
        # [s for w in text.split() for s in tokref.bpe.apply_merges([*w, "</w>"], ranks)], ranks = first index
        "tokenize": "(text, merges)",
        "decode": "(tokens)",  # "".join(tokens).replace("</w>", " ").rstrip(" ")
    },
    "bytelevel": {
        "utf8_encode": "(text)",  # list(text.encode("utf-8"))
        "utf8_decode": "(ids)",  # bytes(ids).decode("utf-8", errors="replace")
        "pretokenize": "(text)",  # regex.compile(GPT2_PATTERN).findall(text)
        "split_special": tokref.bytelevel.split_special,
        # ByteLevelBPETokenizer.from_tiktoken(ranks, pattern=GPT2_PATTERN,
        #     special_tokens=special_tokens).encode(text, allowed_special="all")
        "encode": "(text, ranks, special_tokens)",
    },
    "wordpiece": {
        "count_stats": tokref.wordpiece.count_wordpiece_stats,
        "pair_scores": tokref.wordpiece.wordpiece_pair_scores,
        "best_pair": "(words)",  # best_wordpiece_pair(*count_wordpiece_stats(words)), None without pairs
        "merge_pair": "(words, pair)",  # merge_wordpiece_words(words, pair)
        # wordpiece_split(word, vocab, prefix="##", unk_token=..., max_input_chars_per_word=...)
        "encode_word": "(word, vocab, *, unk_token='[UNK]', max_input_chars_per_word=100)",
    },
    "capstone": {
        "read_text": "(path)",  # given in the setup cell
        "split_on_specials": tokref.bytelevel.split_special,  # given in the setup cell
        # ByteLevelBPETokenizer(...).train(text, vocab_size, special_tokens=...), as merges and vocab
        "train_tokenizer": "(text, vocab_size, special_tokens)",
        # the hidden tests call save_tokenizer_json / load_tokenizer_text, wrappers in the
        # breadth cell (files cannot cross the sandbox), against a JSON round trip
        "save_tokenizer": "(path, merges, special_tokens)",
        "load_tokenizer": "(path)",
        "encode": "(text, merges, special_tokens)",  # the tokenizer's encode(text, allowed_special="all")
        "decode": "(ids, merges, special_tokens)",  # its decode(ids)
        "encode_file": "(path, merges, special_tokens, read_size=65536)",  # via encode_file_ids
        "measure": "(text, encode_fn)",  # via measure_counts: the exact counts only
    },
    "practice": {
        "make_encoder": "(merges)",  # given in the setup cell, as are the two encoders it makes
        "encode": "(text)",
        "encode_bytes": "(text)",
        "decode": "(ids)",
        # tokref.chat.load_chat_template("chatml").render_with_spans(messages, ...), spans as a mask
        "render_chatml": "(messages, *, add_generation_prompt=False)",
        "pad_batch": "(rows, *, pad_id, side='right', length=None)",  # tokref.batch.pad_ids
        "truncate": tokref.batch.truncate_ids,
        "pack": "(docs, row_length, eot_id)",  # tokref.batch.pack_documents: (rows, boundaries)
        # via encode_stream_with_merges(chunks, merges): ByteLevelBPETokenizer.from_vocab_merges
        # (..., pattern=GPT2_PATTERN_STDLIB).encode_iterable(chunks)
        "encode_stream": "(chunks, encode)",
        # via truncate_to_budget_with_merges(text, budget, merges): tokref.budget.truncate_to_budget
        "truncate_to_budget": "(text, budget, encode)",
    },
    "superword": {
        "stage2_words": "(texts)",  # given in the setup cell
        "is_superword_allowed": tokref.superword.is_superword_allowed,
        # tuple(tokref.superword.continue_merges(...)[:2]), each as a list
        "continue_merges": "(words, symbols, merges, n_tokens, *, max_words=4)",
        "patch_starts": "(entropies, threshold, *, rule='global')",  # tokref.patches.patch_starts(h, threshold=t, rule=rule)
    },
    "quality": {
        "make_encoder": "(merges)",  # given in the setup cell, as in practice
        "decode": "(ids)",  # given in the setup cell
        "estimate_discount": tokref.ngram.estimate_discount,
        # via kneser_ney_model_probs (given in the setup cell): KneserNeyLM(order, vocab_size=...).fit(...).prob
        "kneser_ney_model": "(sequences, *, order, vocab_size)",
        "kneser_ney_model_probs": "(sequences, queries, *, order, vocab_size)",
        # via bits_per_byte_with_course_model: the setup's add-one model's bits over the UTF-8 bytes of heldout_texts
        "bits_per_byte": "(train_ids, heldout_ids, heldout_texts, *, order, vocab_size)",
        "sweep_vocab_sizes": "(tokenizations, heldout_texts, *, order)",  # bits_per_byte per lossless size (a stand-in)
        "best_vocab_size": "(table, *, tolerance=0.001)",  # the smallest within tolerance of the lowest
        # Given in the setup cell: each part graded on its own, with the course's version of the
        # part before swapped in (course_version_of) while the tests call the student's function.
        "course_estimate_discount": tokref.ngram.estimate_discount,
        "course_add_one_model": "(sequences, *, order, vocab_size)",
        "course_bits_per_byte": "(train_ids, heldout_ids, heldout_texts, *, order, vocab_size)",
        "course_version_of": "(name, function)",
        "kneser_ney_model_with_course_discount": "(sequences, *, order, vocab_size)",
        "bits_per_byte_with_course_model": "(train_ids, heldout_ids, heldout_texts, *, order, vocab_size)",
        "sweep_vocab_sizes_with_course_bits": "(tokenizations, heldout_texts, *, order)",
    },
    "speed": {
        # tokref.merges.PairCounts(...).counts, and its where as sets (each word once)
        "build_index": "(words, weights)",
        "merge_in_place_run": "(words, weights, pairs)",  # given in the setup cell: what the hidden tests call
        # by definition: tokref.merges.merge_pair on the words that hold the pair, then a recount
        "merge_in_place": "(words, weights, counts, where, pair)",
        # tokref.merges.train_merges on ids of the sorted symbols, merges mapped back to str;
        # cases where a merged string repeats or equals a symbol of the words are dropped
        "train_fast": "(words, n_merges)",
        "train_text": "(text, n_merges)",  # the same on {tuple(w): count for w in text.split()}
        # [piece[a:b] for a, b in pairwise(tokref.heapmerge.heap_bounds(piece, ranks, 1 << 60))]
        "encode_piece": "(piece, ranks)",
        # given in the setup cell: the timing of the speed tests of Parts 2, 3 and 4
        "_seconds": "(run)",
        "_count_once": "(words)",
        "_time_in_passes": "(run, one_pass, limit, block)",
    },
    "languages": {
        "make_encoder": "(tokens)",  # given in the setup cell, as are the encoders it makes, and decode
        "encode": "(text)",
        "encode_bytes": "(text)",
        "decode": "(ids)",
        # tokref.languages.premiums / fertility_by_script take token and word counts; the hidden
        # tests call premiums_with_tokens(texts, tokens, reference) and
        # fertility_with_tokens(texts, scripts, tokens), wrappers in the breadth cell
        "premiums": "(texts, encode, *, reference='en')",
        "fertility_by_script": "(texts, scripts, encode)",
        "group_digits": tokref.languages.group_digits,
        "merges_give_back": tokref.languages.merges_give_back,
        "find_unreachable": tokref.languages.find_unreachable,
        "find_not_round_trippable": tokref.languages.find_not_round_trippable,
        "count_letter": tokref.languages.count_letter,
        "count_visible_letter": tokref.languages.count_visible_letter,
    },
    "batches": {
        "check_boundaries": "(boundaries, row_length)",  # given in the setup cell
        # tokref.training.make_labels(input_ids, attention_mask=..., assistant_mask=...)
        "make_labels": "(input_ids, attention_mask, assistant_mask=None)",
        "positions_from_mask": tokref.training.positions_from_mask,
        "document_positions": tokref.training.document_positions,
        "document_mask": "(boundaries, row_length)",  # tokref.training.document_mask(..., causal=True)
        "packed_labels": tokref.training.packed_labels,
    },
    "unigram": {
        "viterbi": "(text, pieces)",  # viterbi(text, pieces)
        "forward": "(text, pieces)",  # forward_backward(text, pieces)[0]
        "expected_counts": "(corpus, pieces)",  # expected_piece_counts(corpus, pieces)
        "em_step": "(corpus, pieces)",  # ml_m_step(expected_piece_counts(corpus, pieces))
        "prune": "(corpus, pieces, keep)",  # prune_pieces(corpus, pieces, keep)
    },
}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def nbgrader_meta(cell: dict) -> dict:
    return cell["metadata"].get("nbgrader", {})


def source(cell: dict) -> str:
    return "".join(cell["source"])


def test_there_are_assignments():
    assert SOURCE and set(REFERENCE) <= set(ASSIGNMENTS), set(REFERENCE) - set(ASSIGNMENTS)
    for nb in SOURCE:
        assert nb.stem == nb.parent.name, f"{nb}: name the notebook after its assignment"


def nbgrader(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # nbgrader runs `alembic`, which is next to this interpreter.
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


# ---------------------------------------------------------------------------------------
# exercises/
# ---------------------------------------------------------------------------------------


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def contents(folder: Path) -> dict[str, bytes]:
    """Each file's content: its bytes, or a .gz file's decompressed bytes (zlib's output
    for the same input differs between Pythons; release.py keeps the committed bytes)."""
    return {name: gzip.decompress(data) if name.endswith(".gz") else data
            for name, data in files(folder).items()}


@pytest.mark.slow
def test_exercises_are_what_nbgrader_generates(course):
    proc = subprocess.run([sys.executable, "autograder/release.py"], cwd=course,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fresh, committed = contents(course / "exercises"), contents(EXERCISES)
    stale = sorted(set(fresh) ^ set(committed)) + sorted(
        name for name in set(fresh) & set(committed) if fresh[name] != committed[name])
    assert not stale, (
        f"exercises/ is out of date with source/ ({', '.join(stale)}): run `make exercises`"
    )


def released(folder: Path) -> dict[str, bytes]:
    """What a student gets, as they would read it: each file's content (a .gz file's
    decompressed), and each member of a zip (``tokgrade.zip``) as ``<zip>!<member>``."""
    import zipfile

    out = {}
    for name, data in contents(folder).items():
        out[name] = data
        if name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                out.update({f"{name}!{m}": z.read(m) for m in z.namelist()})
    return out


def test_exercises_hold_no_solution_and_no_hidden_test():
    """Nothing released names the reference or holds a solution or a hidden test, the
    grading runtime inside tokgrade.zip included: students never have tokref (and
    tests/test_practice.py runs check.py without it)."""
    everything = released(EXERCISES)
    found = [
        f"{name}: {word!r}"
        for name, data in everything.items()
        for word in FORBIDDEN
        if word.lower() in data.decode("utf-8", errors="replace").lower()
    ]
    imports = [name for name, data in everything.items() if name.endswith(".py")
               and re.search(rb"(import|from) +tokref", data)]
    assert not imports, f"{imports} import tokref, which students do not have"
    assert not found, "exercises/ leaks " + "; ".join(found) + " (run `make exercises`)"


def test_every_check_py_is_the_same_file_and_the_runtime_is_shipped_unchanged():
    """One check.py for every assignment, generated (line 1 says so and by what), and a
    tokgrade.zip beside it that holds solutions/tokgrade's files byte for byte, stored."""
    import zipfile

    folders = sorted(p.parent for p in EXERCISES.glob("*/selfcheck.json.gz"))
    assert len(folders) == len(SOURCE), folders
    checks = {(f / "check.py").read_bytes() for f in folders}
    assert len(checks) == 1, "the check.py files differ between assignments"
    (check,) = checks
    assert check.decode("utf-8").splitlines()[0].startswith(
        "# Generated by autograder/selfcheck_spec.py from autograder/check_template.py")
    assert check == b"".join([check.split(b"\n", 1)[0], b"\n",
                              (ROOT / "autograder" / "check_template.py").read_bytes()])
    runtime = {f"tokgrade/{p.name}": p.read_bytes() for p in sorted((ROOT / "solutions" / "tokgrade").glob("*.py"))}
    zips = {(f / "tokgrade.zip").read_bytes() for f in folders}
    assert len(zips) == 1
    with zipfile.ZipFile(folders[0] / "tokgrade.zip") as z:
        assert z.namelist() == sorted(runtime)
        assert {i.filename: z.read(i) for i in z.infolist()} == runtime
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
    for f in folders:  # the assignment check.py finds is the one its spec names
        spec = json.loads(gzip.decompress((f / "selfcheck.json.gz").read_bytes()))
        assert spec["assignment"] == f.name and (f / f"{f.name}.ipynb").exists()


# ---------------------------------------------------------------------------------------
# source/
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", SOURCE, ids=lambda p: p.parent.name)
def test_source_notebook_is_committed_without_outputs(path):
    for cell in load(path)["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, (
                f"{path.name}, cell {cell.get('id')}: clear the outputs before committing"
            )
    assert "version" not in load(path)["metadata"].get("language_info", {})


def test_grade_ids_are_unique_across_the_course():
    ids = [nbgrader_meta(c)["grade_id"] for p in SOURCE for c in load(p)["cells"]
           if nbgrader_meta(c)]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    for gid in ids:
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", gid), f"grade_id {gid!r}: use <assignment>-<part>-..."


KINDS = ("basic", "edges", "breadth")  # the graded cells of every part, in this order
KIND_NAMES = {"basic": "basic", "edges": "edge cases", "breadth": "breadth"}


@pytest.mark.parametrize("path", SOURCE, ids=lambda p: p.parent.name)
def test_graded_cells(path):
    """Every part is graded in three locked test cells, for partial credit: ``-basic``
    (the task's examples and main rule), ``-edges`` (edge cases) and ``-breadth`` (a
    visible seeded-random check, then the hidden tests of breadth). Each starts with a
    docstring naming its part and kind, has visible asserts and hidden tests of the
    part's function; a part's cells share the points of the intro's table.
    Written answers (the capstone's) are markdown cells graded by hand."""
    cells = load(path)["cells"]
    manual = {nbgrader_meta(c)["grade_id"]: nbgrader_meta(c)["points"] for c in cells
              if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("solution")}
    assert sum(manual.values()) == BY_ID[path.parent.name].written_points  # source/assignments.json
    assert all(c["cell_type"] == "markdown" for c in cells if nbgrader_meta(c).get("grade_id") in manual)
    parts: dict[str, list[tuple[str, float]]] = {}
    function = None
    for cell in cells:
        meta = nbgrader_meta(cell)
        if meta.get("solution") and cell["cell_type"] == "code":
            assert "### BEGIN SOLUTION" in source(cell) and "### END SOLUTION" in source(cell)
            head = source(cell).split("### BEGIN SOLUTION")[0]
            function = re.search(r"^def (\w+)\(", head, re.M).group(1)
            assert '"""' in head, f"{function}: put the docstring before ### BEGIN SOLUTION"
        if not meta.get("grade") or meta.get("solution"):
            continue
        gid, text = meta["grade_id"], source(cell)
        assert meta["locked"] and cell["cell_type"] == "code", gid
        kind = gid.rsplit("-", 1)[1]
        assert kind in KINDS, f"{gid}: a test cell's grade_id ends with one of {KINDS}"
        assert re.match(rf'"""Part \d+, {KIND_NAMES[kind]}: \S.*"""\n', text), (
            f"{gid}: start with a one-line docstring \"\"\"Part N, {KIND_NAMES[kind]}: ...\"\"\"")
        visible, _, hidden = text.partition("### BEGIN HIDDEN TESTS")
        assert "assert" in visible and "tokref" not in visible, gid
        # Every test cell has hidden tests, even basic and edges (the visible calls, checked
        # against the reference): their records, checked outside the sandbox, are what a
        # tampered cell cannot forge (an input transformer that turns cells into `pass`).
        assert hidden.rstrip().endswith("### END HIDDEN TESTS"), f"{gid}: every test cell holds hidden tests"
        check_hidden_section(gid, hidden.rsplit("### END HIDDEN TESTS", 1)[0], function)
        parts.setdefault(function, []).append((kind, meta["points"]))
    for name, graded in parts.items():
        assert [k for k, _ in graded] == list(KINDS), f"{name}: the test cells must be {KINDS}, in order"
        assert all(points > 0 for _, points in graded), name
    intro = source(cells[0])
    table = [(name, int(points)) for name, points
             in re.findall(r"^\| \d+ \| `(\w+)\(.*\| (\d+) \|$", intro, re.M)]
    tested = [(name, sum(p for _, p in graded)) for name, graded in parts.items()]
    assert tested == table, "the points of each part's test cells differ from the intro's table"
    assert sum(points for _, points in tested) == BY_ID[path.parent.name].points


def check_hidden_section(grade_id: str, code: str, function: str) -> None:
    """A hidden section runs in the sandbox, where only tokgrade.grading exists, and in the
    grader's empty namespace: at its top level only imports from tokgrade.grading and
    generators decorated with hidden_test; at least one tests the part's function; the
    reference is imported inside the generators."""
    for node in ast.parse(code).body:
        if isinstance(node, ast.ImportFrom):
            assert node.module == "tokgrade.grading", f"{grade_id}: import only from tokgrade.grading at the top"
        elif isinstance(node, ast.FunctionDef):
            assert [ast.unparse(d).split("(")[0] for d in node.decorator_list] == ["hidden_test"], \
                f"{grade_id}: {node.name} must be decorated with @hidden_test(...)"
        else:
            raise AssertionError(f"{grade_id}: a hidden section holds only imports and @hidden_test generators")
    tests = collect_hidden_tests(code)
    # A hidden test may call a wrapper named after the function (the capstone's
    # save_tokenizer_json, encode_file_ids, measure_counts: files cannot leave the sandbox).
    assert any(t.function.startswith(function) for t in tests), f"{grade_id}: no hidden test of {function}"


def functions(path: Path) -> dict:
    """The functions the setup and solution cells of a notebook define (run in-process)."""
    namespace: dict = {}
    for cell in load(path)["cells"]:
        meta = nbgrader_meta(cell)
        if cell["cell_type"] == "code" and not meta.get("grade"):
            exec(compile(source(cell), f"{path.name}:{meta.get('grade_id')}", "exec"), namespace)
    return {k: v for k, v in namespace.items() if inspect.isfunction(v)}


def parameters(f) -> list[tuple]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize("folder", ["source", "exercises"])
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_functions_have_the_reference_signatures(folder, assignment):
    found = functions(ROOT / folder / assignment / f"{assignment}.ipynb")
    assert found, "no function found"
    references = REFERENCE.get(assignment)
    if references is None:  # no reference listed: the students' docstrings only
        assert all(f.__doc__ for f in found.values()), "every function needs a docstring that students see"
        return
    if isinstance(references, dict):
        assert sorted(found) == sorted(references), "the notebook's functions are not the reference's"
    for name, f in found.items():
        reference = references[name] if isinstance(references, dict) else getattr(references, name)
        if isinstance(reference, str):
            assert str(inspect.signature(f)) == reference, name
        else:
            assert parameters(f) == parameters(reference), name
        assert f.__doc__, f"{name} needs a docstring that students see"


@pytest.mark.parametrize("assignment", ["bytelevel", "capstone", "practice", "quality", "languages"])
def test_stdlib_pattern_is_the_reference_one(assignment):
    """The pattern students get is tokref's GPT2_PATTERN_STDLIB, whose agreement with
    GPT2_PATTERN the hidden tests rely on (tests/test_assignment_refs.py checks it)."""
    namespace: dict = {}
    for cell in load(ROOT / f"source/{assignment}/{assignment}.ipynb")["cells"]:
        if nbgrader_meta(cell).get("grade_id") == f"{assignment}-setup":
            exec(source(cell), namespace)
    assert namespace["GPT2_PATTERN_RE"] == tokref.bytelevel.GPT2_PATTERN_STDLIB


@pytest.mark.slow
def test_source_notebooks_pass_validate_and_stubs_fail_every_test():
    proc = nbgrader("validate", *map(str, SOURCE))
    assert proc.stdout.count("Success! Your notebook passes all the tests.") == len(SOURCE), (
        proc.stdout + proc.stderr)
    stubs = [str(EXERCISES / p.parent.name / p.name) for p in SOURCE]
    proc = nbgrader("validate", "--invert", *stubs)
    assert proc.stdout.count("Success! The notebook does not pass any tests.") == len(SOURCE), (
        proc.stdout + proc.stderr)
