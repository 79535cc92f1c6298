"""Reading the files a user hands over (configs, sweeps, scripts, results) strictly.

Every way such a file can be wrong — missing, unreadable, a directory, a
path the system refuses, not UTF-8 text, malformed, nested too deeply,
holding a number too long to convert — becomes one error naming the file,
raised by the caller's ``fail(problem)`` (a ConfigError or ScriptError), so
that the command line reports it in one line.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable

# No config, sweep, script or results file nests deeper than a few levels;
# a parser recurses once per level, and so would the checks that follow it.
MAX_DEPTH = 64

Fail = Callable[[str], Exception]


def read_text(path: str | os.PathLike, fail: Fail, what: str = "file") -> str:
    """The text of the UTF-8 file at ``path``, without the byte-order mark some editors put first."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise fail(_os_problem(err, what)) from None
    except ValueError as err:  # an embedded NUL byte
        raise fail(f"not a usable path ({err})") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise fail(f"not UTF-8 text ({_encoding_hint(data, err)}); save it as UTF-8") from None


def read_toml(path: str | os.PathLike, fail: Fail, what: str = "TOML file") -> dict[str, Any]:
    """The mapping of the TOML file at ``path``."""
    return parse_toml(read_text(path, fail, what), fail)


def parse_toml(text: str, fail: Fail) -> dict[str, Any]:
    return _parsed(tomllib.loads, text, fail, "TOML", tomllib.TOMLDecodeError, lambda err: f"not valid TOML: {err}")


def read_json(path: str | os.PathLike, fail: Fail, what: str = "JSON file") -> Any:
    """The value of the JSON file at ``path``."""
    return parse_json(read_text(path, fail, what), fail)


def parse_json(text: str, fail: Fail) -> Any:
    return _parsed(json.loads, text, fail, "JSON", json.JSONDecodeError, lambda err: f"not valid JSON ({err})")


def _parsed(loads: Callable[[str], Any], text: str, fail: Fail, kind: str, malformed: type[ValueError],
            malformed_problem: Callable[[ValueError], str]) -> Any:
    """``loads(text)``, nested no deeper than :data:`MAX_DEPTH`; whatever goes wrong is one ``fail(problem)``."""
    try:
        data = loads(text)
    except malformed as err:
        raise fail(malformed_problem(err)) from None
    except RecursionError:
        raise fail(too_deep()) from None
    except ValueError:  # an integer of more digits than Python converts: its hint names a Python call, not a fix
        raise fail(f"not usable {kind}: it holds {too_many_digits()}") from None
    check_depth(data, fail)
    return data


def check_depth(data: Any, fail: Fail, limit: int = MAX_DEPTH) -> None:
    """Refuse lists and tables nested more than ``limit`` deep (counted without recursing)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise fail(too_deep(limit))
        stack.extend((child, depth + 1) for child in children)


def too_deep(limit: int = MAX_DEPTH) -> str:
    return f"nested too deeply (lists and tables at most {limit} levels deep)"


def too_many_digits() -> str:
    """An integer of more digits than Python converts, as a refusal says it."""
    return f"a number too long to read (more than {sys.get_int_max_str_digits():,} digits)"


def _os_problem(err: OSError, what: str) -> str:
    if isinstance(err, FileNotFoundError):
        return "no such file"
    if isinstance(err, IsADirectoryError):
        return f"is a directory, not a {what}"
    if err.errno == errno.ENAMETOOLONG:
        return "cannot be read: a name in the path is too long (at most 255 bytes)"
    return f"cannot be read: {err.strerror or err}"


def _encoding_hint(data: bytes, err: UnicodeDecodeError) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "it looks like UTF-16"
    return f"byte 0x{data[err.start]:02x} at position {err.start:,}"
