"""Papers in other languages (issue 26): language, figure/table labels and titles as the app reads them.

Sets, each reported on its own:

- ``pdf``: the four real SciELO PDFs of ``../shared/corpus/multilingual`` (3 pt, 1 es), against their JATS
  (labels of the article's own <fig>/<table-wrap>, the title of the article in the PDF's language), and the
  one real Korean PDF of the corpus (``papers/docling_normal_4pages.pdf``, against docling's ground truth);
- ``jats``: the 36 articles of ``multilingual/jats`` (28 pt, 7 es SciELO JATS, 1 fr OpenEdition TEI) and
  the four JATS files beside the PDFs, read as XML; gold = MANIFEST.tsv's language (``scielo-rsp-56-9``'s
  main JATS article is English, its Portuguese text a translation: gold "en" for its XML);
- ``rendered``: two PDFs RENDERED here with PyMuPDF's Story (not published PDFs): a French one from the
  real text of the OpenEdition TEI article (title, résumé, abstract, sections, bibliography) and a Korean
  one from a short text written for this benchmark (요약, Abstract, 서론 … 참고문헌, 그림 1, 표 1).

Label recall: gold labels (canonicalised by the app's own ``parse_caption_start``, so "Tabela 2" is
"Table 2") found among the labels of the document's visuals. Title right: the read title equals the gold
one after case and spacing are folded. A translation leak: a block in the document's language marked as a
translation, or a block in another language left as body text.

Summaries (sets ``pdf`` and ``rendered``): the extractive engine's four paragraphs (``summarize.extractive.Extractor.draft``,
what every summary mode starts from) with and without the abstract: empty paragraphs, sentences the
detector puts in another language than the document's, and ROUGE-1/2/L of the ``--no-abstract`` summary
against the abstract in the document's language, scored with text.tokens.rouge_tokens (NFKC, lower case,
accents and Hangul kept, Han/kana per character, no stemming; rouge-score's own tokenizer drops them).
``--localised-roles`` lets summarize.roles.section_role fall back to document.sections.summary_part (the
one-line change the summary owner is asked for) and reports that run instead.

    python benchmarks/multilingual.py [--localised-roles]   # writes benchmarks/results/multilingual[_localised_roles].json
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import pymupdf
from _corpus import CORPUS, write_result
from lxml import etree
from PIL import Image, ImageDraw

from mmdocsum_desktop.bench.metrics.rouge import rouge
from mmdocsum_desktop.document.labels import parse_caption_start
from mmdocsum_desktop.document.language import guess_language
from mmdocsum_desktop.document.reader import read_document
from mmdocsum_desktop.document.sections import summary_part
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.models.embed import TextEmbedder
from mmdocsum_desktop.summarize import roles
from mmdocsum_desktop.summarize.extractive import Extractor

MULTILINGUAL = CORPUS / "multilingual"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TEI = "{http://www.tei-c.org/ns/1.0}"


def fold(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join(re.findall(r"\w+", text))


def manifest() -> dict[str, str]:
    with (MULTILINGUAL / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        return {row["name"]: row["language"] for row in csv.DictReader(handle, delimiter="\t")}


def _local(element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def jats_gold(path: Path, *, language: str | None = None) -> dict:
    """Labels of the main article's figures and tables, and its title; with ``language``, the title of
    the translation in that language when the main article is in another one."""
    root = etree.parse(str(path), etree.XMLParser(recover=True, resolve_entities=False, no_network=True)).getroot()
    if _local(root) == "TEI":  # OpenEdition: captions are <p rend="figure-title">, the title <title type="main">
        captions = [" ".join("".join(p.itertext()).split()) for p in root.iter(f"{TEI}p") if p.get("rend") == "figure-title"]
        starts = [parse_caption_start(c) for c in captions]
        title = next(e for e in root.iter(f"{TEI}title") if e.get("type") == "main")
        return {"labels": sorted({s.label for s in starts if s}), "title": " ".join("".join(title.itertext()).split())}
    labels = []
    for element in root.iter():
        if _local(element) not in ("fig", "table-wrap"):
            continue
        if any(_local(a) == "sub-article" for a in element.iterancestors()):
            continue
        label = next((c for c in element if _local(c) == "label"), None)
        start = parse_caption_start(" ".join("".join(label.itertext()).split())) if label is not None else None
        if start is not None:
            labels.append(start.label)
    title = next((e for e in root.iter() if _local(e) == "article-title"), None)
    title_text = " ".join("".join(title.itertext()).split()) if title is not None else None
    abstract = next((e for e in root.iter() if _local(e) == "abstract" and not any(_local(a) == "sub-article" for a in e.iterancestors())), None)
    if language and root.get(XML_LANG) != language:
        for sub in root.iter():
            if _local(sub) == "sub-article" and sub.get(XML_LANG) == language and sub.get("article-type") == "translation":
                sub_title = next((e for e in sub.iter() if _local(e) == "article-title"), None)
                if sub_title is not None:
                    title_text = " ".join("".join(sub_title.itertext()).split())
                abstract = next((e for e in sub.iter() if _local(e) == "abstract"), abstract)
    abstract_text = "\n".join(" ".join("".join(p.itertext()).split()) for p in abstract.iter() if _local(p) == "p") if abstract is not None else None
    return {"labels": sorted(set(labels)), "title": title_text, "abstract": abstract_text}


def describe(document, gold: dict, expected_language: str) -> dict:
    found = {v.label for v in document.visuals if v.label}
    hits = [label for label in gold["labels"] if label in found]
    language = document.language
    leaks_in = [b.text[:60] for b in document.blocks if b.is_translation and b.language == language and b.type != "heading"]
    leaks_out = [
        b.text[:60]
        for b in document.blocks
        if b.is_body and b.type == "paragraph" and b.language not in (None, language) and len(b.text) > 200
    ]
    return {
        "language": language,
        "expected_language": expected_language,
        "language_right": language == expected_language,
        "title": document.title,
        "gold_title": gold.get("title"),
        "title_right": bool(gold.get("title")) and fold(document.title) == fold(gold["title"]),
        "gold_labels": gold["labels"],
        "labels_found": sorted(found),
        "label_hits": len(hits),
        "labels_missed": [label for label in gold["labels"] if label not in found],
        "translation_blocks": sum(b.is_translation for b in document.blocks),
        "own_language_marked_translation": leaks_in[:3],
        "other_language_left_in_body": leaks_out[:3],
    }


_EMBEDDER: list[TextEmbedder] = []


def summary_checks(document, gold_abstract: str | None) -> dict:
    """Empty paragraphs, sentences in another language, and ROUGE of the --no-abstract summary."""
    if not _EMBEDDER:
        _EMBEDDER.append(TextEmbedder())
    engine = Extractor(_EMBEDDER[0])
    result = {}
    for include_abstract in (True, False):
        drafted = engine.draft(document, include_abstract=include_abstract)
        sentences = [s.text for p in drafted.paragraphs for s in p.sentences]
        foreign = [t for t in sentences if guess_language(t) not in (None, document.language)]
        key = "with_abstract" if include_abstract else "no_abstract"
        result[key] = {
            "paragraphs": len(drafted.paragraphs),
            "empty_paragraphs": sum(not p.sentences for p in drafted.paragraphs),
            "sentences": len(sentences),
            "other_language_sentences": len(foreign),
            "other_language_examples": [t[:80] for t in foreign[:2]],
        }
        if not include_abstract and gold_abstract:
            scores = rouge("\n".join(p.text for p in drafted.paragraphs), gold_abstract, document.language)
            result[key]["rouge_vs_abstract"] = {k: round(scores[k], 4) for k in ("rouge1", "rouge2", "rougeL")}
    return result


def summarise(rows: list[dict]) -> dict:
    gold = sum(len(r.get("gold_labels", [])) for r in rows)
    hits = sum(r.get("label_hits", 0) for r in rows)
    titled = [r for r in rows if r.get("gold_title")]
    return {
        "documents": len(rows),
        "read": sum("error" not in r for r in rows),
        "language_right": sum(bool(r.get("language_right")) for r in rows),
        "label_recall": round(hits / gold, 3) if gold else None,
        "labels": gold,
        "title_right": sum(bool(r.get("title_right")) for r in titled),
        "titled": len(titled),
        **_summary_totals(rows),
        "by_language": {
            language: {
                "documents": sum(r.get("expected_language") == language for r in rows),
                "language_right": sum(r.get("expected_language") == language and bool(r.get("language_right")) for r in rows),
                "language_wrong_as": sorted({r.get("language") or "none" for r in rows if r.get("expected_language") == language and not r.get("language_right")}),
            }
            for language in sorted({r.get("expected_language") for r in rows if r.get("expected_language")})
        },
    }


def _summary_totals(rows: list[dict]) -> dict:
    summarised = [r["summary"] for r in rows if "summary" in r]
    if not summarised:
        return {}
    rouge1 = [s["no_abstract"]["rouge_vs_abstract"]["rouge1"] for s in summarised if "rouge_vs_abstract" in s["no_abstract"]]
    return {
        "summaries": len(summarised),
        "empty_paragraphs_with_abstract": sum(s["with_abstract"]["empty_paragraphs"] for s in summarised),
        "empty_paragraphs_no_abstract": sum(s["no_abstract"]["empty_paragraphs"] for s in summarised),
        "other_language_sentences": sum(s[k]["other_language_sentences"] for s in summarised for k in ("with_abstract", "no_abstract")),
        "rouge1_no_abstract_mean": round(sum(rouge1) / len(rouge1), 4) if rouge1 else None,
        "rouge_tokenizer": "text.tokens.rouge_tokens",
    }


def read(path: Path):
    try:
        return read_document(path), None
    except MmdocsumError as error:
        return None, str(error)


def run_pdfs(languages: dict[str, str]) -> list[dict]:
    rows = []
    for pdf in sorted(MULTILINGUAL.glob("*.pdf")):
        expected = languages[pdf.stem]
        document, error = read(pdf)
        if document is None:
            rows.append({"name": pdf.name, "expected_language": expected, "error": error})
            continue
        gold = jats_gold(pdf.with_suffix(".xml"), language=expected)
        rows.append({"name": pdf.name, **describe(document, gold, expected), "summary": summary_checks(document, gold["abstract"])})
    # A real Korean PDF is in papers/ (a National Assembly Research Service report, docling's test file):
    # its captions from docling's ground truth, its title the ground truth's heading that names the report.
    korean = CORPUS / "papers" / "docling_normal_4pages.pdf"
    truth = json.loads((CORPUS / "docling_groundtruth" / "normal_4pages.json").read_text(encoding="utf-8"))
    captions = [t["text"] for t in truth["texts"] if t["label"] == "caption"]
    gold = {
        "labels": sorted({s.label for s in map(parse_caption_start, captions) if s}),
        "title": "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제",
    }
    document, error = read(korean)
    if document is None:
        rows.append({"name": korean.name, "expected_language": "ko", "error": error})
    else:
        rows.append({"name": korean.name, **describe(document, gold, "ko"), "summary": summary_checks(document, None)})
    return rows


def run_jats(languages: dict[str, str]) -> list[dict]:
    rows = []
    paths = sorted(MULTILINGUAL.glob("*.xml")) + sorted((MULTILINGUAL / "jats").glob("*.xml"))
    for path in paths:
        expected = "en" if path.stem == "scielo-rsp-56-9" else languages[path.stem]
        document, error = read(path)
        if document is None:
            rows.append({"name": path.name, "expected_language": expected, "error": error})
            continue
        rows.append({"name": path.name, **describe(document, jats_gold(path), expected)})
    return rows


# --- rendered PDFs ------------------------------------------------------------------------------------

KOREAN = {
    "title": "도시 녹지가 대기 질에 미치는 영향에 관한 연구",
    "abstract": "이 연구는 서울의 도시 녹지 면적과 미세먼지 농도 사이의 관계를 분석하였다. 2018년부터 2022년까지 "
    "25개 자치구의 관측 자료를 사용하였으며, 녹지 비율이 높은 지역에서 미세먼지 농도가 유의하게 낮게 나타났다. "
    "이러한 결과는 도시 계획에서 녹지 확충이 대기 질 개선에 기여할 수 있음을 시사한다.",
    "english": "This study analysed the relationship between urban green space and fine dust concentration in "
    "Seoul. Observations from 25 districts between 2018 and 2022 were used, and districts with a higher share "
    "of green space showed significantly lower concentrations of fine dust.",
    "sections": [
        ("서론", "도시화가 진행됨에 따라 대기 오염은 시민의 건강을 위협하는 주요한 문제가 되었다. 특히 미세먼지는 "
         "호흡기 질환과 심혈관 질환의 위험을 높이는 것으로 알려져 있다. 선행 연구들은 나무와 숲이 공기 중의 "
         "입자를 걸러 낸다고 보고하였으나, 도시 전체 규모에서의 효과는 충분히 검증되지 않았다."),
        ("연구 방법", "본 연구는 서울시 25개 자치구의 녹지 비율과 대기 측정망 자료를 결합하였다. 표 1은 분석에 사용한 "
         "변수의 기술 통계를 보여준다. 녹지 비율은 위성 영상에서 산출하였고, 미세먼지 농도는 연평균값을 사용하였다. "
         "교통량과 인구 밀도는 통제 변수로 포함하였다."),
        ("연구 결과", "그림 1에서 보듯이 녹지 비율이 10퍼센트 높아질 때 미세먼지 농도는 평균적으로 낮아졌다. 이 관계는 "
         "교통량과 인구 밀도를 통제한 뒤에도 유지되었다. 다만 겨울철에는 그 효과가 약하게 나타났다."),
        ("결론", "도시 녹지는 미세먼지 농도를 낮추는 데 기여하는 것으로 보인다. 향후 연구에서는 녹지의 종류와 배치가 "
         "미치는 영향을 구분하여 살펴볼 필요가 있다."),
    ],
    "figure": "그림 1. 자치구별 녹지 비율과 미세먼지 농도의 관계",
    "table": "표 1. 분석 변수의 기술 통계",
    "references": ["김철수, 이영희 (2019). 도시 숲과 대기 질. 한국환경학회지, 12(3), 45-60.",
                   "박민수 (2021). 미세먼지 저감 정책의 효과 분석. 환경정책연구, 20(1), 1-20."],
}


def _tei_text(element) -> str:
    return " ".join("".join(element.itertext()).split())


def french_from_tei(path: Path) -> dict:
    """Title, abstracts, keywords, sections and bibliography of the OpenEdition TEI article (its real text)."""
    root = etree.parse(str(path), etree.XMLParser(recover=True, resolve_entities=False, no_network=True)).getroot()
    title = next(e for e in root.iter(f"{TEI}title") if e.get("type") == "main")
    abstracts = {d.get(XML_LANG): [_tei_text(p) for p in d.iter(f"{TEI}p")] for d in root.iter(f"{TEI}div") if d.get("type") == "abstract"}
    body = next(root.iter(f"{TEI}body"))
    sections: list[tuple[str, str]] = []
    for div in body.iter(f"{TEI}div"):
        head = next((h for h in div if h.tag == f"{TEI}head"), None)
        paragraphs = [_tei_text(p) for p in div if p.tag == f"{TEI}p" and _tei_text(p)]
        if head is not None and paragraphs:
            sections.append((_tei_text(head), " ".join(paragraphs[:2])))
    bibliography = [_tei_text(b) for b in root.iter(f"{TEI}bibl")][-8:]
    return {
        "title": _tei_text(title),
        "abstract": " ".join(abstracts.get("fr", [])),
        "english": " ".join(abstracts.get("en", [])),
        "sections": sections[:6],
        "figure": "Figure 1 : Le programme de recherche du Cours d’action (illustration pour ce rendu)",
        "table": "Tableau 1 : Les étapes du dispositif de formation (illustration pour ce rendu)",
        "references": bibliography,
    }


def _png(label: str) -> bytes:
    image = Image.new("RGB", (480, 240), "white")
    draw = ImageDraw.Draw(image)
    for x in range(40, 440, 40):
        draw.rectangle([x, 200 - (x % 160), x + 24, 200], fill=(60, 110, 170))
    draw.line([20, 200, 460, 200], fill="black", width=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def render(paper: dict, language: str, target: Path) -> Path:
    """Lay the paper out on A4 pages with PyMuPDF's Story: title, abstract, translated abstract, sections,
    a chart image with its caption, a table with its caption, references."""
    names = {
        "ko": ("요약", "Abstract", "참고문헌"),
        "fr": ("Résumé", "Abstract", "Bibliographie"),
    }[language]
    archive = pymupdf.Archive()
    archive.add(_png("figure"), "figure1.png")
    parts = [f"<h1>{paper['title']}</h1>", f"<h3>{names[0]}</h3><p>{paper['abstract']}</p>",
             f"<h3>{names[1]}</h3><p>{paper['english']}</p>"]
    for position, (heading, text) in enumerate(paper["sections"]):
        parts.append(f"<h2>{heading}</h2><p>{text}</p>")
        if position == 1:
            parts.append(f"<p><img src='figure1.png' width='360' height='180'/></p><p style='font-size:9px'>{paper['figure']}</p>")
            parts.append(f"<p style='font-size:9px'>{paper['table']}</p><table border='1'><tr><th>A</th><th>B</th><th>C</th></tr>"
                         "<tr><td>12.1</td><td>3.4</td><td>0.5</td></tr><tr><td>10.8</td><td>2.9</td><td>0.7</td></tr></table>")
    parts.append(f"<h2>{names[2]}</h2>" + "".join(f"<p>{r}</p>" for r in paper["references"]))
    story = pymupdf.Story("".join(parts), archive=archive, user_css="body {font-size: 11px;} h1 {font-size: 20px;}")
    writer = pymupdf.DocumentWriter(str(target))
    page = pymupdf.paper_rect("a4")
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(page + (56, 56, -56, -56))
        story.draw(device)
        writer.end_page()
    writer.close()
    return target


def run_rendered(folder: Path) -> list[dict]:
    rows = []
    french = french_from_tei(MULTILINGUAL / "jats" / "openedition-oj-ejrieps-9683-out.xml")
    for language, paper in (("ko", KOREAN), ("fr", french)):
        pdf = render(paper, language, folder / f"rendered-{language}.pdf")
        document, error = read(pdf)
        gold = {"labels": ["Figure 1", "Table 1"], "title": paper["title"]}
        if document is None:
            rows.append({"name": pdf.name, "expected_language": language, "error": error})
            continue
        row = describe(document, gold, language)
        row["english_abstract_marked_translation"] = any(
            b.is_translation and paper["english"][:40] in b.text for b in document.blocks
        )
        row["references_recognised"] = any(b.section_kind == "references" for b in document.blocks)
        row["summary"] = summary_checks(document, paper["abstract"])
        rows.append({"name": pdf.name, "rendered": True, **row})
    return rows


def main() -> int:
    if not MULTILINGUAL.is_dir():
        print(f"multilingual corpus not found at {MULTILINGUAL}", file=sys.stderr)
        return 2
    localised = "--localised-roles" in sys.argv[1:]
    if localised:
        english_roles = roles.section_role
        roles.section_role = lambda heading: english_roles(heading) or summary_part(heading)
    languages = manifest()
    started, cpu = time.perf_counter(), time.process_time()
    pdf_rows = run_pdfs(languages)
    jats_rows = run_jats(languages)
    with tempfile.TemporaryDirectory() as folder:
        rendered_rows = run_rendered(Path(folder))
    result = {
        "section_roles": "English + document.sections.summary_part (--localised-roles)" if localised else "summarize.roles.section_role as shipped",
        "sets": {
            "pdf (4 real SciELO PDFs + 1 real Korean PDF)": {"summary": summarise(pdf_rows), "documents": pdf_rows},
            "jats (40 XML: jats/ and the 4 beside the PDFs)": {"summary": summarise(jats_rows), "documents": jats_rows},
            "rendered (PyMuPDF Story, not published PDFs)": {"summary": summarise(rendered_rows), "documents": rendered_rows},
        },
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
    }
    for name, payload in result["sets"].items():
        print(name, payload["summary"])
    print("written", write_result("multilingual_localised_roles" if localised else "multilingual", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
