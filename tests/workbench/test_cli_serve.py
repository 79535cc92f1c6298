"""`lvsim serve` from the command line: its help, and a port or host it cannot listen on refused in one line."""

import socket

import pytest
from click.testing import CliRunner

from sim.cli import main

pytest.importorskip("fastapi")


def lvsim(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_serve_is_a_command_with_help_for_every_option():
    result = lvsim("serve", "--help")
    assert result.exit_code == 0
    assert "workbench" in result.output
    for option in ("--host", "--port"):
        assert option in result.output
    assert "127.0.0.1" in result.output and "8765" in result.output


def test_a_port_in_use_is_refused_naming_the_option():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = lvsim("serve", "--port", port)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --port: cannot listen on 127.0.0.1:{port}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, field", [(["--port", "70000"], "--port"), (["--host", "no-such-host.invalid"], "--host")])
def test_an_impossible_address_is_refused_naming_the_option(args, field):
    result = lvsim("serve", *args)
    assert result.exit_code == 2 and field in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
