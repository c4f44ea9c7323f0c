"""`mmdocsum ask DOC "question"`: an answer from the document's own evidence, every sentence cited with
its page and the figure or table it rests on. Markdown (default) or the Answer JSON on stdout (or -o).

Without a language model (``--engine extractive``, the default when none is configured) the answer
quotes the best evidence; with ``--engine llama --model smollm2-135m`` (or a GGUF file) or ``--engine
openai`` a model writes it from the evidence and every sentence is checked against it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mmdocsum_desktop.app.ask import ask, check_question, question_language_note  # app.ask is also the module
from mmdocsum_desktop.app.present import escape_markdown
from mmdocsum_desktop.app.session import Session
from mmdocsum_desktop.cli.progress import tqdm_control, write_stderr
from mmdocsum_desktop.deadline import command_deadline
from mmdocsum_desktop.errors import InputNotFoundError, MmdocsumError
from mmdocsum_desktop.fileio import check_output_path, write_text_atomic
from mmdocsum_desktop.schemas.answer import Answer, AnswerSentence, AskOptions
from mmdocsum_desktop.schemas.options import build
from mmdocsum_desktop.schemas.settings import EngineChoice
from mmdocsum_desktop.text.reader_strings import ReaderStrings, reader_strings

FORMATS = ("md", "json")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("ask", help="ask a question about a document; the answer cites pages, figures and tables")
    parser.add_argument("file", type=Path, help="PDF, HTML, Markdown or JATS XML file")
    parser.add_argument("question", help="the question (quote it)")
    parser.add_argument("--engine", choices=("auto", "extractive", "llama", "openai"), default="auto",
                        help="auto (default): the configured model, else extractive (no model file needed)")
    parser.add_argument("--model", help="llama: GGUF model file or a registered model name (e.g. smollm2-135m)")
    parser.add_argument("--format", choices=FORMATS, default="md", help="md (default) or json (the Answer schema)")
    parser.add_argument("-o", "--output", type=Path, help="write the answer to this file instead of stdout")
    parser.add_argument("--no-rerank", action="store_true", help="rank evidence without the cross-encoder")
    parser.add_argument("--no-ocr", action="store_true",
                        help="refuse a scanned PDF (no text layer) instead of reading it with OCR first")
    parser.add_argument("--max-tokens", type=int, default=None, help="tokens for the model's answer (default 160)")
    parser.add_argument("--temperature", type=float, default=None)
    parser.add_argument("--n-ctx", type=int, default=None, help="llama: context length in tokens")
    parser.add_argument("--threads", type=int, default=None, help="llama: CPU threads")
    parser.add_argument("--base-url", help="openai: the endpoint, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--api-model", help="openai: the model name")
    parser.add_argument("--api-key-name", help="openai: name of the API key in the system keyring")
    parser.add_argument("--password", help="password of an encrypted PDF")
    parser.add_argument("--stream", action="store_true", help="print the model's text to stderr as it writes")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS", default=None,
                        help="end the command after this many seconds in all: loading the model, every request to "
                             "the server and the answer (the model's text so far is kept); default: no limit")
    parser.add_argument("--quiet", action="store_true", help="no progress bars and no notes on stderr")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    question = check_question(args.question)  # empty → a clear error before anything loads
    if not args.file.exists():
        raise InputNotFoundError(f"{args.file}: no such file")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise MmdocsumError("--max-tokens must be at least 1")
    # checked before anything loads: a value that does not fit is one line naming the flag, exit code 2
    options = build(AskOptions, {"time_limit_s": args.time_limit}, labels={"time_limit_s": "--time-limit"})
    if args.output is not None and args.output.is_dir():
        raise MmdocsumError(f"{args.output} is a folder; -o takes the file to write")
    if args.output is not None:
        check_output_path(args.output, [args.file])  # not onto the document asked about, /proc, /sys
    choice = EngineChoice(
        engine=args.engine, model=args.model, n_ctx=args.n_ctx, n_threads=args.threads, base_url=args.base_url,
        api_model=args.api_model, key_name=args.api_key_name, max_tokens=args.max_tokens,
        temperature=args.temperature,
    )
    notes: list[str] = []
    # one deadline for the whole command (deadline.py): the model's loading, each request, the answer
    with command_deadline(args.time_limit), Session() as session:
        with tqdm_control("reading", enabled=not args.quiet) as control:
            # scanned pages are read with OCR unless --no-ocr, as in every command and the GUI
            document = session.read(args.file, password=args.password, control=control, ocr=not args.no_ocr)
        language_note = question_language_note(question)
        if language_note:
            notes.append(language_note)
        on_text = write_stderr if args.stream else None
        with tqdm_control("answering", enabled=not args.quiet and not args.stream) as control:
            answer = ask(session, document, args.question, choice=choice, options=options,
                         rerank=not args.no_rerank, control=control, on_text=on_text)
        if args.stream:
            sys.stderr.write("\n")
    answer.notes = notes + answer.notes
    if not args.quiet:
        for repair in answer.repairs:
            if repair.kind == "question-truncated":
                print(f"mmdocsum: note: {repair.reason}", file=sys.stderr)
        for note in answer.notes:
            print(f"mmdocsum: note: {note}", file=sys.stderr)
    text = answer.model_dump_json(indent=2) + "\n" if args.format == "json" else render_markdown(answer)
    if args.output is not None:
        write_text_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _where(sentence: AnswerSentence, strings: ReaderStrings) -> str:
    parts = [f"{strings.word('page')} {', '.join(str(p) for p in sentence.pages)}"] if sentence.pages else []
    parts += [strings.label(label) for label in (*sentence.figures, *sentence.tables)]
    return f" \\[{_escaped(' · '.join(parts))}\\]" if parts else ""


def render_markdown(answer: Answer) -> str:
    """The answer as Markdown. Everything that came from the document, the model or the user (question,
    sentences, evidence, labels, repairs, the model's name) goes through ``escape_markdown``: a document's
    ``<script>``, ``<iframe>``, ``[x](javascript:…)`` or ``![](/private/…)`` is shown as the text it is
    and never becomes markup in whatever renders the file (summarize.render's policy)."""
    esc = _escaped
    # what frames the answer reads in the answer's language, the question's (answer.language)
    strings = reader_strings(answer.language)
    lines = [f"**{strings.word('question')}:** {esc(answer.question)}", ""]
    lines.append(" ".join(f"{esc(s.text)}{_where(s, strings)}" for s in answer.sentences))
    if answer.evidence:
        lines += ["", f"**{strings.word('evidence')}**", ""]
        for item in answer.evidence:
            where = [f"{strings.word('page')} {item.page}"] if item.page is not None else []
            where += [strings.label(label) for label in item.labels]
            text = item.text if len(item.text) <= 300 else item.text[:300].rsplit(" ", 1)[0] + " …"
            lines.append(f"{item.number}. ({esc(' · '.join(where) or item.kind)}; support {item.support:.2f}) {esc(text)}")
    if answer.repairs:
        lines += ["", "**Repairs**", ""]
        lines += [f"- {esc(r.kind)}: {esc(r.reason)}" for r in answer.repairs]
    engine = answer.engine.engine or "?"
    model = answer.engine.model or None
    timing = answer.timings.get("total_s")
    lines += ["", f"_{esc(engine)}{f' · {esc(model)}' if model and engine != 'extractive' else ''}"
                  f"{f' · {timing:.2f} s' if timing is not None else ''}_", ""]
    return "\n".join(lines)


def _escaped(text: str) -> str:
    """Document text for a Markdown line: escaped, one line (a newline could open a block of its own)."""
    return escape_markdown(" ".join(text.split()))
