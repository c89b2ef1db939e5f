# Rebuild solutions/tokref/data/parallel/sphinx_messages.json from the Sphinx wheel installed in .venv
# (see that directory's README.md). Run from the repository root: .venv/bin/python solutions/scripts/extract_sphinx_messages.py
import sphinx, pathlib, re, json, hashlib
from babel.messages.pofile import read_po
root = pathlib.Path(sphinx.__file__).parent/"locale"
use = {"fr":("French","Latin"),"es":("Spanish","Latin"),"pt_BR":("Portuguese (Brazil)","Latin"),"tr":("Turkish","Latin"),
       "id":("Indonesian","Latin"),"ru":("Russian","Cyrillic"),"el":("Greek","Greek"),"fa":("Persian","Arabic"),
       "hi":("Hindi","Devanagari"),"ka":("Georgian","Georgian"),"zh_CN":("Chinese (simplified)","Han"),
       "ja":("Japanese","Han and kana"),"ko":("Korean","Hangul")}
cats = {}
for l in use:
    with open(root/l/"LC_MESSAGES"/"sphinx.po","rb") as f: cat = read_po(f)
    cats[l] = {m.id: m.string for m in cat if m.id and isinstance(m.id,str) and not m.fuzzy and m.string}
common = set.intersection(*(set(c) for c in cats.values()))
keep = sorted(m for m in common if len(m.split())>=2 and not re.search(r"[%{}<>`\\\n]|https?:", m)
              and all(not re.search(r"[%{}<>`\\\n]", cats[l][m]) for l in use))
msgs = [{"en": m, **{l: cats[l][m].strip() for l in use}} for m in keep]
out = {"name":"sphinx_messages","description":"User-interface messages of Sphinx 7.4.7 (English source strings) with their translations from the catalogues that ship in the sphinx package (sphinx/locale/<lang>/LC_MESSAGES/sphinx.po), kept where all 13 languages have a non-fuzzy translation and neither side has placeholders or markup.",
       "source":"sphinx 7.4.7 from PyPI (https://pypi.org/project/Sphinx/7.4.7/), sphinx/locale/*/LC_MESSAGES/sphinx.po","license":"BSD-2-Clause (Sphinx's LICENSE.rst; the translations are part of the Sphinx project)",
       "languages": {"en":{"name":"English","script":"Latin"}, **{l:{"name":n,"script":s} for l,(n,s) in use.items()}},
       "messages": msgs}
p = pathlib.Path("solutions/tokref/data/parallel/sphinx_messages.json")
p.write_text(json.dumps(out, ensure_ascii=False, indent=1)+"\n", encoding="utf-8")
print(len(msgs), p.stat().st_size)
for m in msgs[:5]: print(m["en"], "|", m["ko"], "|", m["hi"])
