"""claimgate works as a user gets it: a wheel installed into a fresh virtual environment, run from another folder.

Builds the wheel from a copy of the package's files (``pip wheel --no-deps --no-build-isolation``: offline,
and the checkout is left untouched), installs it into a new virtual environment outside the checkout, and
runs the console command and the API from an unrelated folder. The package itself comes only from the wheel
(checked); its dependencies are shared with the running interpreter through a ``.pth`` file, so the test
needs no network and stays well under a minute and a half.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..helpers import ROOT
from .pdfs import tiny_pdf

PACKAGE_FILES = ("pyproject.toml", "README.md", "dataflow", "fixtures")


@dataclass
class Installed:
    """A fresh environment with the wheel installed, and a working folder outside the checkout."""

    python: Path
    claimgate: Path
    workdir: Path

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env["HAMILTON_AUTOLOAD_EXTENSIONS"] = "0"  # start-up time only; the output does not depend on it
        return subprocess.run(
            [str(a) for a in args], cwd=cwd or self.workdir, env=env, capture_output=True, text=True, timeout=300
        )


def build_wheel(tmp: Path) -> Path:
    """The project's wheel, built offline from a copy of the files it packages."""
    source = tmp / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in PACKAGE_FILES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    dist = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = dist.glob("claimgate-*.whl")
    return wheel


def dependency_paths() -> list[str]:
    """The running interpreter's site-packages folders (where claimgate's dependencies are installed)."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    paths.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return sorted(p for p in paths if Path(p).is_dir())


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(tmp)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # Dependencies only: lines of a .pth file are added to sys.path, but .pth files inside those folders (an
    # editable install of the checkout) are not run, so `claimgate` can only come from the wheel.
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "claimgate_test_dependencies.pth").write_text("\n".join(dependency_paths()) + "\n")
    workdir = tmp / "elsewhere"
    workdir.mkdir()
    return Installed(python, venv / "bin" / "claimgate", workdir)


def test_package_comes_from_the_wheel_not_the_checkout(installed):
    code = "import claimgate, claimgate.resources as r; print(claimgate.__file__); print(r.fixtures_dir())"
    out = installed.run(installed.python, "-c", code)
    assert out.returncode == 0, out.stderr
    package, fixtures = out.stdout.splitlines()
    venv = installed.python.parent.parent
    assert Path(package).is_relative_to(venv) and Path(fixtures).is_relative_to(venv)
    assert not Path(package).is_relative_to(ROOT)


def test_version_is_the_wheels(installed):
    out = installed.run(installed.claimgate, "--version")
    assert (
        out.returncode == 0
        and out.stdout.strip()
        == f"claimgate {tomllib.loads((ROOT / 'pyproject.toml').read_text())['project']['version']}"
    )


def test_help(installed):
    out = installed.run(installed.claimgate, "--help")
    assert out.returncode == 0, out.stderr
    assert "gate" in out.stdout and "audit" in out.stdout


def test_default_demo_writes_output_in_the_current_folder(installed):
    folder = installed.workdir / "demo"
    folder.mkdir()
    bare = installed.run(installed.claimgate, cwd=folder)  # a bare `claimgate` prints the overview only
    assert bare.returncode == 0 and bare.stdout.startswith("usage: claimgate") and list(folder.iterdir()) == []
    out = installed.run(installed.claimgate, "demo", cwd=folder)
    assert out.returncode == 0, out.stderr
    golden = ROOT / "tests" / "golden" / "expected"
    assert (folder / "output" / "gate_result.json").read_bytes() == (golden / "default_gate_result.json").read_bytes()
    assert (folder / "output" / "audit_result.jsonl").read_bytes() == (
        golden / "default_audit_result.jsonl"
    ).read_bytes()
    for name in ("answer_result.json", "answer_report.html"):  # the answer demo, from the packaged fixtures
        assert (folder / "output" / name).read_bytes() == (golden / f"default_{name}").read_bytes()


def test_gate_on_the_packaged_fixtures(installed):
    fixtures = installed.run(
        installed.python, "-c", "from claimgate.resources import fixtures_dir; print(fixtures_dir())"
    )
    folder = Path(fixtures.stdout.strip())
    output = installed.workdir / "gate" / "quill.json"
    out = installed.run(
        installed.claimgate,
        "gate",
        "--manifest",
        folder / "manifest.json",
        "--cases",
        folder / "cases.json",
        "--output",
        output,
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    cases = json.loads(output.read_text(encoding="utf-8"))["cases"]
    assert [c["result"]["status"] for c in cases][:4] == ["ready", "ready", "conflict", "not_in_docs"]


def test_api_and_folder_audit(installed):
    docs = installed.workdir / "docs"
    (docs / "1.4.0").mkdir(parents=True)
    (docs / "1.4.0" / "guide.md").write_text("Copies are refused when the destination path exists.\n")
    (docs / "limits.html").write_text("<p>At most&nbsp;10 uploads <b>per</b> minute.</p><script>x()</script>")
    (docs / "manual.pdf").write_bytes(tiny_pdf([["Retries stop after three attempts."]]))
    script = """
import json, sys
from claimgate import Audit, Gate
from claimgate.resources import fixtures_dir

gate = Gate.from_manifest(fixtures_dir() / "manifest.json")
result = gate.decide(["quill-guide", "quill-reference"], "1.0", "existing_path")
frame = gate.decide_many(json.loads((fixtures_dir() / "cases.json").read_text()))
audit = Audit.from_corpus(sys.argv[1])
rows = audit.check([{"citation_id": "c", "doc_id": "limits.html", "quote": "at most 10 uploads per minute"}])
print(json.dumps([result["status"], len(frame), rows.loc[0, "verdict"], audit.extractors]))
"""
    out = installed.run(installed.python, "-c", script, docs)
    assert out.returncode == 0, out.stderr
    extractors = {"1.4.0/guide.md": "markdown", "limits.html": "html", "manual.pdf": "pdf"}
    assert json.loads(out.stdout) == ["ready", 8, "found", extractors]

    citations = installed.workdir / "citations.jsonl"
    citations.write_text(
        json.dumps({"citation_id": "g", "doc_id": "1.4.0/guide.md", "quote": "refused when the destination path"})
        + "\n"
    )
    output = installed.workdir / "audit.jsonl"
    out = installed.run(
        installed.claimgate, "audit", "--corpus-dir", docs, "--citations", citations, "--output", output, "--quiet"
    )
    assert out.returncode == 0, out.stderr
    row = json.loads(output.read_text(encoding="utf-8"))
    assert (row["verdict"], row["extractors"]) == ("found", {"1.4.0/guide.md": "markdown"})


def adoption_walkthrough(installed: Installed, folder: Path) -> None:
    """The user's path on their own docs with the installed command; extend it as commands are added.

    Today: copy the packaged Quill pages, gate them, edit a page without re-pinning, and see the next run
    refused (exit 3, ``hash_mismatch`` naming the page, nothing written). ``pin`` → semver ``gate`` →
    ``verify`` after an edit → re-pin is ``test_pin_verify_gate_walkthrough_with_the_installed_command``.
    """
    fixtures = installed.run(
        installed.python, "-c", "from claimgate.resources import fixtures_dir; print(fixtures_dir())"
    )
    shutil.copytree(Path(fixtures.stdout.strip()), folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    gate_args = ("gate", "--manifest", folder / "manifest.json", "--cases", folder / "cases.json", "--quiet")
    first = installed.run(installed.claimgate, *gate_args, "--output", folder / "first.json")
    assert first.returncode == 0, first.stderr
    page = folder / "sources" / "quill-guide.md"
    page.write_bytes(page.read_bytes().replace(b"existing_path=refuse", b"existing_path=overwrite"))
    second = installed.run(installed.claimgate, *gate_args, "--output", folder / "second.json")
    assert second.returncode == 3
    assert second.stderr.startswith("error: IngestionError: hash_mismatch: quill-guide: ")
    assert not (folder / "second.json").exists()


def test_adoption_walkthrough(installed):
    adoption_walkthrough(installed, installed.workdir / "mydocs")


def test_pin_verify_gate_walkthrough_with_the_installed_command(installed):
    """docs/using-your-docs.md's walkthrough, verbatim, with the wheel's ``claimgate`` first on PATH.

    pin two versions into one manifest → verify → gate with a semver schema → edit a page → verify
    (exit 3 naming the page) → re-pin → verify holds again.
    """
    from ..cli.test_walkthrough import walkthrough_script

    folder = installed.workdir / "acme"
    folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{installed.claimgate.parent}{os.pathsep}{env.get('PATH', '')}"
    env["HAMILTON_AUTOLOAD_EXTENSIONS"] = "0"
    done = subprocess.run(
        ["bash", "-e", "-c", walkthrough_script()], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "error: IngestionError: hash_mismatch: docs/1.4.0/streams.md: pinned " in done.stderr
    assert done.stdout.rstrip().endswith("all 3 pins of manifest.json hold")
    results = {e["case_id"]: e["result"] for e in json.loads((folder / "result.json").read_text())["cases"]}
    assert results["buffering-1.4"]["status"] == "ready"


# --- docs/walkthrough-project.md, run as written with the wheel's command and python -------------------


def project_walkthrough_script() -> str:
    """The ``sh`` block of docs/walkthrough-project.md, verbatim."""
    import re

    text = (ROOT / "docs" / "walkthrough-project.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```sh\n(.*?)^```$", text, flags=re.S | re.M)
    return block


@pytest.fixture(scope="module")
def project_walk(installed):
    folder = installed.workdir / "wisp"
    folder.mkdir()
    env_path = f"{installed.python.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    done = installed.run("env", f"PATH={env_path}", "bash", "-e", "-c", project_walkthrough_script(), cwd=folder)
    return done, folder


def test_project_walkthrough_runs_from_the_wheel(project_walk):
    done, folder = project_walk
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr and "Quill" not in done.stderr  # the project's schema, every step


def test_project_walkthrough_lint_finds_the_conflict_then_passes(project_walk):
    _, folder = project_walk
    before = (folder / "lint-before.txt").read_text()
    assert "docs/1.0/guide.md=true, docs/1.0/reference.rst=False" in before and "CONFLICT" in before
    assert "lint fails: 0 directive problem(s), 1 conflict(s), 3 gap(s)" in before
    after = json.loads((folder / "lint-after.json").read_text())
    assert after["summary"] == {
        "conflicts": 0,
        "declares_nothing": False,
        "exit_status": 0,
        "gaps": 3,
        "pages": 4,
        "problems": 0,
        "strict": False,
    }
    assert "0 added, 1 re-pinned, 3 unchanged, 0 removed" in (folder / "update.txt").read_text()


def test_project_walkthrough_gate_and_declaring_decide_as_the_page_says(project_walk):
    _, folder = project_walk
    document = json.loads((folder / "result.json").read_text())
    assert document["execution_mode"] == "wisp-docs-gate"
    results = {entry["case_id"]: entry["result"] for entry in document["cases"]}
    timeout = results["timeout-1.0"]
    assert (timeout["status"], timeout["agreed_value"]) == ("ready", 5.0)
    assert [(c["value"], c["typed_value"], c["quote"]) for c in timeout["claims"]] == [
        ("5", 5.0, "@wisp client timeout=5"),
        ("5.0", 5.0, "@wisp client timeout=5.0"),
    ]
    guide = (folder / "docs/1.0/guide.md").read_text()
    claim = timeout["claims"][0]
    assert guide[claim["start"] : claim["end"]] == claim["quote"] and claim["start_line"] == 3
    assert "within five seconds" in claim["context"]["text"]
    assert "within five seconds" in timeout["answer_request"]["messages"][1]["content"]
    assert results["redirects-2.0"]["reason"] == "requested_claim_missing"
    assert (folder / "declaring.txt").read_text() == "['docs/2.0/guide.md'] ready True\n"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert len(manifest["schema_sha256"]) == 64
