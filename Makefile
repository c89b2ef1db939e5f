# The two commands of the README:
#   make book   set up .venv and book/_web (npm), build the book (_build/html) and regenerate exercises/
#   make test   set up .venv, build the book (any cell error or warning fails), run every test
#   make publish  build the book and push _build/html to the gh-pages branch (ghp-import)
#   make test-pythons  tokref's unit tests and doctests on each Python 3.10-3.13 found here
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The grading kernel's own environment: what students have, without tokref (autograder/sandbox.py).
KERNEL := $(VENV)/kernel
KERNEL_STAMP := $(KERNEL)/.installed

.PHONY: setup web book html exercises test test-pythons publish clean

# Re-install only when the requirements change: a second `make` reuses .venv.
$(STAMP): requirements.txt solutions/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -e ./solutions
	@touch $@

$(KERNEL_STAMP): autograder/kernel-requirements.txt $(STAMP)
	@test -x $(KERNEL)/bin/python || $(PYTHON) -m venv $(KERNEL)
	$(KERNEL)/bin/python -m pip install --quiet --disable-pip-version-check -r autograder/kernel-requirements.txt
	@touch $@

# Both venvs' python links to $(PYTHON)'s real file: warn if other users cannot run it (pyenv under /root).
setup: $(STAMP) $(KERNEL_STAMP)
	@$(PYTHON) -c 'import os,sys; p=os.path.realpath(getattr(sys,"_base_executable",None) or sys.executable); shut=[d for d in [p[:i] or "/" for i,c in enumerate(p) if c=="/"] if not os.stat(d).st_mode&1]+[p]*(os.stat(p).st_mode&5!=5); shut and print(f"make setup: warning: {p}, the Python of .venv and .venv/kernel, is closed to other users ({shut[0]}): only you can use these venvs. For a course that others grade or share: rm -rf .venv && make setup PYTHON=/usr/bin/python3 (any Python 3.10+ that all users can run).",file=sys.stderr)' || true

# The practice pages' npm packages (Pyodide, CodeMirror, esbuild): `npm ci` installs exactly
# book/_web/package-lock.json, checking every tarball against its integrity hash; build.mjs
# bundles the book's JavaScript (book/_web/src: the editor and the practice page into
# book/_web/dist, the book's static files; the explorers into tokref's static/tokx.js)
# and copies Pyodide into book/_web/dist.
WEB := book/_web
WEB_STAMP := $(WEB)/dist/.built
$(WEB_STAMP): $(WEB)/package.json $(WEB)/package-lock.json $(WEB)/build.mjs $(wildcard $(WEB)/src/*.js $(WEB)/src/*/*.js $(WEB)/src/*/*/*.js)
	@command -v npm >/dev/null || { echo "The practice pages need Node.js and npm: apt-get install -y nodejs npm"; exit 1; }
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	node $(WEB)/build.mjs
	@touch $@

web: $(WEB_STAMP)

# assignments.py --sync: _toc.yml's practice pages and their stubs book/practice/<a>.md
# from source/assignments.json, the list of assignments (written only when they change).
# -W: a warning (a cell error is one) fails the build; execution itself raises on errors.
# The chapters import tokref, but neither Sphinx (it re-reads changed pages only) nor
# jupyter-cache (it keys on the cells' source) sees a change to tokref: when anything in
# tokref changed since the last build, drop the cache and rebuild every page (--all).
# Sphinx's incremental build also skips copying static files when no page changed: a
# change to the book's CSS, extension or scripts (book/_static, book/_ext, the bundles
# of book/_web/dist/practice) rebuilds every page too.
STAMP_HTML := _build/.tokref-stamp
html: setup web
	$(BIN)/python autograder/assignments.py --sync
	@mkdir -p _build; all=""; \
	if [ ! -f $(STAMP_HTML) ] || [ -n "$$(find solutions/tokref -newer $(STAMP_HTML) -type f -not -path '*/__pycache__/*' -print -quit)" ]; then \
		echo "tokref changed since the last build (or first build): executing every chapter"; \
		rm -rf _build/.jupyter_cache; all="--all"; \
	elif [ -n "$$(find book/_static book/_ext $(WEB)/dist/practice _config.yml _toc.yml -newer $(STAMP_HTML) -type f -not -path '*/__pycache__/*' -print -quit)" ]; then \
		echo "the book's configuration, CSS or extension changed: rebuilding every page"; all="--all"; fi; \
	touch $(STAMP_HTML).new; \
	$(BIN)/jupyter-book build . --warningiserror --keep-going $$all && mv $(STAMP_HTML).new $(STAMP_HTML)

exercises: setup
	$(BIN)/python autograder/release.py

book: html exercises

# The tests run on every core (pytest-xdist), a whole file per worker (--dist loadfile:
# a file's module fixtures are built once and its tests keep their order).
test: html
	$(BIN)/python -m pytest -c tests/pytest.ini --rootdir . -n auto --dist loadfile

# The README promises Python 3.10+, but .venv is one Python: tokref, which readers install
# on theirs, is tested on every Python 3.10-3.13 found in PATH or ~/.pyenv/versions (one not
# found is skipped, saying so), each in a small venv of its own, .venv-py3.X, reused while
# its requirements do not change. tests/pythons.sh lists the tests and says why those.
test-pythons:
	bash tests/pythons.sh

# Publish the built book: _build/html becomes the only commit of the gh-pages branch, pushed
# to $(REMOTE) (GitHub Pages serves it when the repository's Pages source is that branch;
# README, "Publishing the book"). .nojekyll (-n) keeps Pages from hiding _static/ and _sources/.
REMOTE ?= origin
publish: html
	$(BIN)/ghp-import -n -p -f -r $(REMOTE) -b gh-pages \
		-m "The book, built from $$(git rev-parse --short HEAD)" _build/html

clean:
	rm -rf _build
