"""What users install is what is tested: the wheel holds every file of the package, and the
app's stylesheets are found where the installed package looks for them.

The rest of the suite imports the source tree (pytest puts the repository on sys.path),
which holds every file whether or not the wheel does; only a built and installed wheel
shows a data file that pyproject.toml forgot (tui/screens/views.tcss once: eight screens
raised StylesheetError from a plain `pip install .`).
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.doc_examples import normalized, run_shown

#: Run by the installed package's Python, outside the repository: prints each stylesheet
#: a Textual class of the package loads, as Textual resolves it (CSS_PATH relative to the
#: file of the class in use), after checking passk_tui itself is the installed one.
CHECK_STYLESHEETS = """
import importlib, inspect, pkgutil, sys
from pathlib import Path, PurePath
from textual.dom import DOMNode
import passk_tui

package = Path(passk_tui.__file__).resolve().parent
assert package.is_relative_to(Path(sys.prefix).resolve()), package
for info in pkgutil.walk_packages(passk_tui.__path__, "passk_tui."):
    module = importlib.import_module(info.name)
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module.__name__ or not issubclass(cls, DOMNode):
            continue
        paths = getattr(cls, "CSS_PATH", None) or []
        base = Path(getattr(cls, "_BASE_PATH", None) or inspect.getfile(cls)).parent
        for path in [paths] if isinstance(paths, str | PurePath) else paths:
            print(cls.__qualname__, (base / path).resolve(), sep="\\t")
"""


def tracked_package_files() -> list[str]:
    """Every file under passk_tui/ that git tracks or would add (untracked, not ignored)."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: which files the package has is git's to say")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "passk_tui"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return sorted(name for name in listed.split("\0") if name and (ROOT / name).is_file())


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tracked files a build reads: a build/ or __pycache__ left in the working
    tree cannot put into a wheel or sdist what a clean clone lacks."""
    source = tmp_path_factory.mktemp("source")
    for name in ["pyproject.toml", "README.md", "LICENSE", *tracked_package_files()]:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    return source


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip install .` builds from ``source``."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(out), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (built,) = out.glob("passk_tui-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed: its Python. Its dependencies come from this
    environment's site-packages, listed after its own, so its passk_tui is the wheel's."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    (Path(purelib) / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    missing = [name for name in tracked_package_files() if name not in shipped]
    assert missing == []
    assert not [name for name in shipped if "__pycache__" in name or name.endswith(".pyc")]


def test_the_wheel_and_the_sdist_carry_the_mit_license(
    source: Path, wheel: Path, tmp_path: Path
) -> None:
    """pyproject.toml says MIT; the licence text itself ships with both, as MIT asks."""
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 the passk-tui authors" in text
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (shipped,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(shipped).decode() == text
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode().split("\n\n")[0].splitlines()
    assert {"License-Expression: MIT", "License-File: LICENSE"} <= set(headers)
    subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "b.build_sdist(sys.argv[1])", str(tmp_path)],
        cwd=source, check=True, capture_output=True,
    )  # fmt: skip
    (sdist,) = tmp_path.glob("passk_tui-*.tar.gz")
    with tarfile.open(sdist) as archive:
        (member,) = [
            m
            for m in archive.getmembers()
            if m.name.count("/") == 1 and m.name.endswith("/LICENSE")
        ]
        licence = archive.extractfile(member)
        assert licence is not None and licence.read().decode() == text


def test_every_stylesheet_of_the_installed_app_is_there(installed: Path, tmp_path: Path) -> None:
    shown = subprocess.run(
        [str(installed), "-c", CHECK_STYLESHEETS],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    rows = [line.split("\t") for line in shown.stdout.splitlines()]
    assert {"PasskApp", "ViewScreen", "MoreAttemptsScreen"} <= {name for name, _ in rows}
    missing = [(name, path) for name, path in rows if not Path(path).is_file()]
    assert missing == []
    venv = installed.parent.parent.resolve()
    assert all(Path(path).is_relative_to(venv) for _, path in rows)


def test_the_installed_command_runs_the_demo(installed: Path, tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PASSK_DATA_DIR": str(tmp_path)}
    ran = subprocess.run(
        [str(installed.parent / "passk-tui"), "--demo", "--headless", "--attempts", "2"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # no gate: done
    assert "pass@" in ran.stdout and "10/10 attempts" in ran.stderr


def test_the_installed_package_runs_the_python_pages_examples(
    installed: Path, tmp_path: Path
) -> None:
    """The issue's "done when": a fresh venv with the wheel runs docs/python.md's examples as written,
    the pytest plugin found through the wheel's own ``pytest11`` entry point."""
    folder = tmp_path / "my-project"
    folder.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PASSK_DATA_DIR": str(tmp_path / "d")}
    for run, printed in run_shown(installed, folder, env):
        assert printed == normalized(run.output), run.command
    entry = subprocess.run(
        [str(installed), "-c", ENTRY_POINT], cwd=tmp_path, capture_output=True, text=True,
        env=env, timeout=60,
    )  # fmt: skip
    where, value = entry.stdout.split()
    assert Path(where).resolve().is_relative_to(installed.parent.parent.resolve()), entry.stderr
    assert value == "passk_tui.api.pytest_plugin"


#: Where the installed distribution is, and the module its ``pytest11`` entry point names.
ENTRY_POINT = """
from importlib.metadata import distribution
dist = distribution("passk-tui")
(plugin,) = [e for e in dist.entry_points if e.group == "pytest11"]
print(dist.locate_file(""), plugin.value)
"""
