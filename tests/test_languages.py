"""Languages as data: detection, placeholders, missing toolchains are reasons, not tracebacks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from judge.build import SkipLanguage, build, detect_language
from judge.languages import expand, language_for, load_languages, missing_tool, toolchain
from judge.runner import make_runner


def test_every_language_is_declared() -> None:
    langs = load_languages()
    assert set(langs) == {"python3", "c", "cpp", "pascal", "java"}
    assert language_for(Path("a.CPP"), langs).id == "cpp"  # type: ignore[union-attr]
    assert language_for(Path("a.pas"), langs).id == "pascal"  # type: ignore[union-attr]
    assert language_for(Path("a.txt"), langs) is None


def test_placeholders() -> None:
    langs = load_languages()
    tools = toolchain()
    argv = expand(langs["c"].compile, main="a.c", files=("a.c", "b.c"), tools=tools, memory_mib=256)
    assert argv[-4:] == ("prog", "a.c", "b.c", "-lm")
    run = expand(langs["java"].run, main="Main.java", files=(), tools=tools, memory_mib=256)
    assert "-Xmx192m" in run and run[-1] == "Main"
    assert expand(langs["python3"].run, main="s.py", files=(), tools=tools, memory_mib=1)[0] == tools.python


def test_missing_toolchain_names_the_package(tmp_path: Path) -> None:
    langs = load_languages()
    fake = dataclasses.replace(langs["pascal"], compile=("no-such-fpc-compiler", "{main}"))
    message = missing_tool(fake, toolchain())
    assert message is not None and "apt-get install fp-compiler" in message
    src = tmp_path / "a.pas"
    src.write_text("begin end.")
    with pytest.raises(SkipLanguage, match="fp-compiler"):
        build(src, fake, problem=None, tools=toolchain(), runner=make_runner("auto"), workdir=tmp_path)


def test_unknown_extension_is_a_reason(tmp_path: Path) -> None:
    src = tmp_path / "a.rb"
    src.write_text("puts 1")
    with pytest.raises(SkipLanguage, match="unknown language"):
        detect_language(src, load_languages())
