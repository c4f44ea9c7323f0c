"""Every string a reader sees around a paper's own words, in the paper's language: the four paragraph
headings, figure and table link text ("Tabela 1", "Abbildung 2"), page markers, the notes that say why a
paragraph shows no figure, the sentence that stands where a paper has nothing for a part, the warning on a
summary written by a small model, and "the document does not say" of an answer.

The strings are data, one TOML file per language under ``resources/reader/`` (en, pt, es, fr, de, it),
read once on first use and checked against English (every key English has, and the same ``{fields}`` in
each template, so a format call cannot fail on a translation). A language without a file gets English.
Renderers ask :func:`reader_strings` with the summary's or the answer's language; nothing here decides
*when* a string is shown, only how it reads.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from mmdocsum_desktop.text.languages import primary_subtag

READER_STRINGS = "mmdocsum_desktop.resources.reader"
_SECTIONS = ("headings", "parts", "labels", "words", "sentences", "no_figure")
# "Figure 3", "Table S2", "Box 1a": a canonical label word, then what numbers it
_LABEL = re.compile(r"^(?P<word>[A-Z][a-z]+)(?P<space>\s*)(?P<rest>.*)$", re.DOTALL)


class ReaderStringsError(ValueError):
    """A file under resources/reader is malformed (a packaging error, not the user's)."""


@dataclass(frozen=True)
class ReaderStrings:
    """The reader-facing strings of one language; see the module."""

    code: str
    english_name: str
    headings: dict[str, str]
    parts: dict[str, str]
    labels: dict[str, str]
    words: dict[str, str]
    sentences: dict[str, str]
    no_figures: dict[str, str]

    def heading(self, role: str) -> str:
        """The heading of a summary paragraph ("Resultados" for results); an unknown role as it is."""
        return self.headings.get(role) or role.replace("_", " ").title()

    def word(self, key: str, **fields: object) -> str:
        """A short word or phrase of the ``[words]`` table, filled in ("Resumo de {name}")."""
        return self.words[key].format(**fields) if fields else self.words[key]

    def label(self, label: str | None) -> str:
        """A canonical label ("Table 2", as the readers store labels in every language) as this language
        prints it ("Tabela 2", "Tableau 2", "Abbildung 2"); a label of no known word is left as it is."""
        if not label:
            return label or ""
        match = _LABEL.match(label.strip())
        if match is None or match.group("word") not in self.labels:
            return label
        rest = match.group("rest")
        return f"{self.labels[match.group('word')]}{self.words['label_space'] if rest else ''}{rest}"

    def labels_list(self, labels: Sequence[str]) -> str:
        """ "Figura 1, Figura 2 e Tabela 3": labels joined with this language's "and"."""
        shown = [self.label(label) for label in labels]
        if len(shown) <= 1:
            return "".join(shown)
        space = self.words.get("and_space", " ")  # none in Chinese and Japanese
        return f"{', '.join(shown[:-1])}{space}{self.words['and']}{space}{shown[-1]}"

    def marker(self, pages: Sequence[int], labels: Sequence[str], *, ocr: bool = False) -> str:
        """A citation marker: "(p. 3; Figura 2)", "(S. 3, 4; Abbildung 1)"; '' when it cites nothing."""
        parts = []
        unique = sorted(set(pages))
        if unique:
            word = self.words["page"] if len(unique) == 1 else self.words["pages"]
            parts.append(f"{word} {', '.join(str(page) for page in unique)}" + (f", {self.words['ocr']}" if ocr else ""))
        parts.extend(dict.fromkeys(self.label(label) for label in labels))
        return f"({'; '.join(parts)})" if parts else ""

    def no_content(self, role: str) -> str:
        """The sentence a paragraph shows when the paper has nothing that serves its part (an erratum)."""
        return self.sentences["no_content"].format(part=self._part(role))

    def no_section(self, role: str) -> str:
        """The paper has no section for the part (no heading names one)."""
        return self.sentences["no_section"].format(part=self._part(role))

    def no_readable_sentence(self, role: str) -> str:
        """The paper's section for the part has no sentence that stands on its own."""
        return self.sentences["no_readable_sentence"].format(part=self._part(role))

    def no_figure(self, kind: str, labels: Sequence[str] = ()) -> str:
        """Why a paragraph shows no figure (``schemas.summary.NoFigureKind``), naming the labels concerned
        where the reason is about them ("Tabela 2, que este parágrafo cita, não tem imagem.")."""
        if labels and kind in ("shown_elsewhere", "no_image"):
            number = "many" if len(labels) > 1 else "one"
            return self.no_figures[f"{kind}_{number}"].format(labels=self.labels_list(labels))
        return self.no_figures[kind]

    def model_warning(self, verdict: str, model: str) -> str:
        """The warning on a summary written by a model unfit ("unfit") or weak ("weak") to write one."""
        return self.sentences["unfit_model" if verdict == "unfit" else "weak_model"].format(model=model)

    @property
    def not_in_document(self) -> str:
        """An answer's sentence when the document does not answer the question."""
        return self.sentences["not_in_document"]

    def _part(self, role: str) -> str:
        return self.parts.get(role, role)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _load(code: str, data: dict[str, object], english: dict[str, object] | None) -> ReaderStrings:
    tables: dict[str, dict[str, str]] = {}
    for section in _SECTIONS:
        table = data.get(section)
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise ReaderStringsError(f"reader strings {code}.toml: [{section}] is missing or not all strings")
        tables[section] = {str(k): str(v) for k, v in table.items()}
        if english is not None:
            reference = english[section]
            assert isinstance(reference, dict)
            missing = sorted(set(reference) - set(tables[section]))
            if missing:
                raise ReaderStringsError(f"reader strings {code}.toml: [{section}] lacks {', '.join(missing)}")
            for key, template in tables[section].items():
                if key in reference and _fields(template) != _fields(str(reference[key])):
                    raise ReaderStringsError(f"reader strings {code}.toml: [{section}] {key} has other fields than English")
    if data.get("code") != code:
        raise ReaderStringsError(f"reader strings {code}.toml says its code is {data.get('code')!r}")
    return ReaderStrings(code=code, english_name=str(data.get("english_name", code)), headings=tables["headings"],
                         parts=tables["parts"], labels=tables["labels"], words=tables["words"],
                         sentences=tables["sentences"], no_figures=tables["no_figure"])


@cache
def _all() -> dict[str, ReaderStrings]:
    files = {entry.name.removesuffix(".toml"): tomllib.loads(entry.read_text(encoding="utf-8"))
             for entry in resources.files(READER_STRINGS).iterdir() if entry.name.endswith(".toml")}
    if "en" not in files:
        raise ReaderStringsError("the English reader strings (en.toml) are missing")
    english = files["en"]
    return {code: _load(code, data, None if code == "en" else english) for code, data in files.items()}


def reader_languages() -> tuple[str, ...]:
    """The languages with reader strings of their own (ISO 639-1)."""
    return tuple(sorted(_all()))


def reader_strings(language: str | None) -> ReaderStrings:
    """The reader strings of a language ("pt-BR" → pt); English for None or a language without a file."""
    tables = _all()
    return tables.get(primary_subtag(language) or "en", tables["en"])
