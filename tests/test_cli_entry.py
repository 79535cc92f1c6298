"""The `lvsim` program as installed: it leaves without the interpreter's teardown, losing nothing on the way."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main


def lvsim(*args: str, before: str = "") -> subprocess.CompletedProcess:
    """Run the console entry point in a fresh interpreter, with ``before`` run ahead of it."""
    code = f"{before}\nfrom sim.cli import entry\nimport sys\nsys.argv = ['lvsim', *{list(args)!r}]\nentry()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_the_output_is_whole_and_the_exit_code_zero():
    done = lvsim("games")
    assert done.returncode == 0
    assert done.stdout == CliRunner().invoke(main, ["games"]).output


def test_bad_input_still_exits_2_with_one_line():
    done = lvsim("run", "--games", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "--games" in done.stderr


def test_exit_handlers_still_run():
    done = lvsim("--version", before="import atexit\natexit.register(lambda: print('exit handler ran'))")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "exit handler ran"


def test_a_thread_still_at_work_is_waited_for(tmp_path):
    flag = tmp_path / "finished"
    before = (
        "import threading, time, pathlib\n"
        f"threading.Thread(target=lambda: (time.sleep(0.5), pathlib.Path({str(flag)!r}).write_text('yes'))).start()"
    )
    done = lvsim("--version", before=before)
    assert done.returncode == 0
    assert flag.read_text() == "yes"


def test_a_full_standard_output_is_named_as_standard_output(tmp_path):
    """``lvsim games > /dev/full``: the line says what could not be written, as a file's would."""
    full_disk = Path("/dev/full")
    if os.geteuid() == 0:  # as root, a twin of /dev/full of our own: nothing may ever replace the real one
        full_disk = tmp_path / "full"
        os.mknod(full_disk, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    if not full_disk.is_char_device():
        pytest.skip("no /dev/full to print to")
    with open(os.open(full_disk, os.O_WRONLY), "w") as full:  # never created if it is missing
        code = "from sim.cli import entry\nimport sys\nsys.argv = ['lvsim', 'games']\nentry()"
        done = subprocess.run([sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=300)
    assert done.returncode == 2
    assert done.stderr == "error: could not write to standard output: No space left on device\n"
