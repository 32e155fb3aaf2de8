"""``claimgate answer``: audit a whole generated answer, claim by claim; accept or refuse it.

Writes the answer's result (``--output``, JSON), and on request its annotated Markdown
(``--annotated``), a stripped Markdown listing what it removed (``--strip``), a summary for CI
(``--summary``) and a review page (``--report``). Rules: docs/answer-rules.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from claimgate.cli.audit import add_document_options, add_matching_options, documents_of, judge_of
from claimgate.cli.ci import add_ci_options, check_ci_outputs, exit_status, fail_on_set, summary, write_summary
from claimgate.cli.command_list import HELP
from claimgate.cli.ledger_options import add_ledger_option, ledger_paths
from claimgate.cli.options import Command, add_max_corpus_bytes, add_max_source_bytes, check_max_source_bytes
from claimgate.cli.terminal import text_table
from claimgate.errors import UsageError
from claimgate.execution.settings import RunSettings
from claimgate.io.atomic import check_outputs
from claimgate.io.sources import pinned_paths
from claimgate.io.writers import write_json, write_text_file

#: What ``--fail-on`` may name: the answer's verdicts and the claims' statuses.
FAIL_ON_CHOICES = ("refused", "accepted", "unsupported", "uncited", "supported")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_document_options(parser)
    parser.add_argument(
        "--answer", required=True, help="the answer: plain JSON {text, citations} or an Anthropic response"
    )
    parser.add_argument(
        "--format", choices=("auto", "plain", "anthropic"), default="auto", help="the answer's format (default auto)"
    )
    parser.add_argument(
        "--documents", metavar="FILE", help="JSON list of the doc ids in the order the documents were sent (anthropic)"
    )
    parser.add_argument("--output", required=True, help="the answer's result (.json)")
    parser.add_argument(
        "--policy",
        choices=("strict", "connective"),
        default="strict",
        help="strict (default): every claim must be supported; connective: short uncited connective claims pass",
    )
    parser.add_argument("--annotated", metavar="FILE.md", help="write the answer with every failing claim marked")
    parser.add_argument(
        "--strip", metavar="FILE.md", help="write the answer without its failing claims, listing what was removed"
    )
    add_matching_options(parser)
    add_ledger_option(parser)
    add_max_source_bytes(parser)
    add_max_corpus_bytes(parser)
    add_ci_options(parser, "answer verdict or claim status", FAIL_ON_CHOICES)


def claims_table(result: dict) -> str:
    """Readable table: claim, kind, status, reason, the start of its text."""
    body = [[c["claim_id"], c["kind"], c["status"], c["reason"], c["text"][:60]] for c in result["claims"]]
    return text_table(body, ["claim", "kind", "status", "reason", "text"])


def answer_summary(result: dict) -> dict:
    """The ``--summary`` document: the answer's verdict, then counts and rates of claim statuses and reasons."""
    claims = result["claims"]
    return summary(
        [c["status"] for c in claims],
        [c["reason"] for c in claims],
        verdict=result["verdict"],
        reason=result["reason"],
    )


def run_answer_command(args: argparse.Namespace) -> int:
    """``claimgate answer``: audit one answer and write its result (exit 1 on a ``--fail-on`` match)."""
    from claimgate.audit.answer.claims import stripped_markdown
    from claimgate.audit.matching.settings import MatchSettings
    from claimgate.execution.answers import AnswerOptions, run_answer

    check_max_source_bytes(args)
    if args.min_tokens < 1 or args.window_chars < 1:
        raise UsageError("--min-tokens and --window-chars must be at least 1")
    if args.glob and not args.corpus_dir:
        raise UsageError("--glob needs --corpus-dir")
    output = Path(args.output)
    if output.suffix.lower() != ".json":
        raise UsageError("--output must end in .json")
    fail_on = fail_on_set(args.fail_on, FAIL_ON_CHOICES)
    markdown = [Path(p) for p in (args.annotated, args.strip) if p]
    if any(p.suffix.lower() != ".md" for p in markdown):
        raise UsageError("--annotated and --strip must end in .md")
    inputs = {
        "--answer": args.answer,
        "--documents": args.documents,
        "--corpus": args.corpus,
        "--manifest": args.manifest,
    }
    all_inputs = {**inputs, **(pinned_paths(args.manifest) if args.manifest else {})}
    outputs = [output, *markdown, *check_ci_outputs(args), *ledger_paths(args)]
    check_outputs(outputs, all_inputs, {"--corpus-dir": args.corpus_dir})
    run = run_answer(
        args.answer,
        documents_of(args),
        llm_call=judge_of(args),
        match=MatchSettings(min_tokens=args.min_tokens, window_chars=args.window_chars),
        options=AnswerOptions(args.format, args.documents or "", args.policy, not args.no_diagnose),
        settings=RunSettings(max_source_bytes=args.max_source_bytes, max_corpus_bytes=args.max_corpus_bytes),
    )
    result = run.result
    write_json(output, result)
    if args.ledger:
        from claimgate.audit.ledger import answer_ledger_rows
        from claimgate.io.ledger_append import append_ledger

        append_ledger(args.ledger, answer_ledger_rows(result, run.documents, run.source_maps))
    if args.annotated:
        write_text_file(args.annotated, result["annotated"] + "\n")
    if args.strip:
        failing = [c["claim_id"] for c in result["claims"] if c["status"] != "supported"]
        write_text_file(args.strip, stripped_markdown(result["text"], result["claims"], failing))
    if args.summary:
        write_summary(args.summary, answer_summary(result))
    if args.report:
        from claimgate.report import answer_page

        page = answer_page(result, run.documents, title=f"Answer audit of {args.answer}", maps=run.source_maps)
        write_text_file(args.report, page)
    if not args.quiet:
        print(claims_table(result))
        print(f"answer {result['verdict']} ({result['reason']})")
        print(f"wrote {output}")
    return exit_status([result["verdict"], *(c["status"] for c in result["claims"])], fail_on)


#: What the default run's answer demo writes beside its results.
DEMO_OUTPUTS = ("answer_result.json", "answer_report.html")


def run_demo(out_dir: Path, say=print) -> None:
    """The default run's answer demo: a three-sentence answer over the audit demo's corpus (no judge).

    Writes ``answer_result.json`` and its review page ``answer_report.html`` into ``out_dir``.
    """
    from claimgate.execution.answers import run_answer
    from claimgate.execution.drivers import CorpusFile
    from claimgate.report import answer_page
    from claimgate.resources import fixtures_dir

    run = run_answer(fixtures_dir() / "audit" / "answer.json", CorpusFile(fixtures_dir() / "audit" / "corpus.json"))
    result = run.result
    write_json(out_dir / DEMO_OUTPUTS[0], result)
    write_text_file(
        out_dir / DEMO_OUTPUTS[1], answer_page(result, run.documents, title="Answer audit of the demo answer")
    )
    say("\nanswer audit demo (a three-sentence answer over the same corpus):")
    say(claims_table(result))
    say(f"answer {result['verdict']} ({result['reason']}): failing claims {', '.join(result['failing_claims'])}")
    say(f"wrote {out_dir / DEMO_OUTPUTS[0]} and its review page {out_dir / DEMO_OUTPUTS[1]}")


COMMAND = Command("answer", HELP["answer"], add_arguments, run_answer_command)
