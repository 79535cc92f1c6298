import json
import os
import shutil
import subprocess
import sys
import threading
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import sim._kernel_cache as kc
import sim.games

HIGHCARD = Path(__file__).resolve().parents[1] / "examples" / "highcard" / "lvsim_highcard"


def write(files: dict[Path, str]) -> None:
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def register(site: Path, package: str, game_id: str) -> None:
    """The ``.dist-info`` an installer leaves beside a game's package: its name and its ``lvsim.games`` entry point."""
    info = site / f"{package}-0.1.0.dist-info"
    write({
        info / "METADATA": f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 0.1.0\n",
        info / "entry_points.txt": f"[lvsim.games]\n{game_id} = {package}.game:GAME\n",
    })


def edit(path: Path) -> None:
    path.write_text(path.read_text() + "# changed\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project in place of this one (its cache beside it), with the games installed here."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.setattr(kc, "PACKAGE", pkg)
    monkeypatch.delenv(kc.ROOT_VARIABLE, raising=False)
    return pkg


def test_the_cache_directory_follows_the_sources(project, monkeypatch):
    write({
        project / "a.py": "x = 1\n",
        project / "sub" / "nb.py": "from numba import njit\n",
        project / "sub" / "b.py": "y = 2\n",
    })

    def cache_dir_of_a_new_process():
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        kc.use_keyed_cache()
        return os.environ["NUMBA_CACHE_DIR"]

    first = cache_dir_of_a_new_process()
    assert Path(first).parent == project.parent / ".kernel-cache"
    assert cache_dir_of_a_new_process() == first  # unchanged sources reuse their kernels

    (project / "sub" / "b.py").write_text("y = 3\n")  # a policy changes, the kernel file does not
    second = cache_dir_of_a_new_process()
    assert second != first
    assert not os.path.exists(first)  # stale kernels are dropped


def test_a_cache_dir_set_by_the_user_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    kc.use_keyed_cache()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_the_cache_goes_where_LVSIM_KERNEL_CACHE_says(project, monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv(kc.ROOT_VARIABLE, str(tmp_path / "elsewhere"))
    kc.use_keyed_cache()
    assert Path(os.environ["NUMBA_CACHE_DIR"]) == tmp_path / "elsewhere" / kc.source_digest()
    assert not (project.parent / ".kernel-cache").exists()


def test_numba_loaded_before_the_cache_is_keyed_caches_there_too(project, monkeypatch):
    import numba

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    try:
        kc.use_keyed_cache()
        assert numba.core.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
    finally:
        monkeypatch.undo()
        numba.core.config.reload_config()


def test_editing_the_machinery_around_the_kernels_keeps_them(project):
    write({
        project / "rng.py": "from numba import njit\n",
        project / "cli.py": "x = 1\n",
        project / "game" / "nb.py": "from numba import njit\n",
        project / "game" / "enums.py": "A = 1\n",  # constants a kernel reads: no njit in sight
        project / "tune" / "search.py": "x = 1\n",  # a package with no kernel: machinery
    })
    first = kc.source_digest()
    (project / "cli.py").write_text("x = 2\n")
    (project / "tune" / "search.py").write_text("x = 2\n")
    assert kc.source_digest() == first
    for changed in (project / "rng.py", project / "game" / "enums.py"):
        edit(changed)
        assert kc.source_digest() != first
        first = kc.source_digest()


def test_what_a_kernel_imports_is_hashed_however_it_is_imported(project):
    analysis = project.parent / "analysis"
    write({
        project / "game" / "nb.py": (
            "import numpy as np\n"
            "from numba import njit\n"
            "from .. import weights\n"
            "from ..shared import (  # read by the kernels\n"
            "    LIMIT,\n"
            "    TOP,\n"
            ")\n"
            "import pkg.streams as streams\n"
            "from pkg import (  # the kernels' helpers (read once)\n"
            "    helpers,\n"
            ")\n"
            "from analysis.stats import interval_nb\n"
        ),
        project / "weights.py": "W = (1, 2)\n",
        project / "shared.py": "from pkg.limits import LIMIT\nTOP = 3\n",
        project / "limits.py": "LIMIT = 9\n",
        project / "streams.py": "A = 1\n",
        project / "helpers.py": "B = 1\n",
        project / "config.py": "x = 1\n",
        analysis / "__init__.py": "",
        analysis / "stats.py": "def interval_nb(): pass\n",
        analysis / "figures.py": "x = 1\n",
    })
    hashed = kc.kernel_sources()
    for label in ("pkg/weights.py", "pkg/shared.py", "pkg/limits.py", "pkg/streams.py", "pkg/helpers.py",
                  "analysis/stats.py"):
        assert label in hashed
        first = kc.source_digest()
        edit(project.parent / label)
        assert kc.source_digest() != first, label
    for label in ("pkg/config.py", "analysis/figures.py"):
        assert label not in hashed
        first = kc.source_digest()
        edit(project.parent / label)
        assert kc.source_digest() == first, label


def test_a_plugin_games_package_and_what_its_kernels_import_are_hashed(project, monkeypatch, tmp_path):
    site = tmp_path / "plugins"
    library = tmp_path / "venv" / "lib" / "site-packages"
    write({
        site / "lvsim_toy" / "__init__.py": "",
        site / "lvsim_toy" / "game.py": "GAME = None\n",
        site / "lvsim_toy" / "enums.py": "GREEDY = 1\n",
        site / "lvsim_toy" / "policies.py": "from numba import njit\n\nfrom lvsim_toy import enums as E\n",
        site / "lvsim_toy" / "nb.py": (
            "import numpy as np\nfrom numba import njit\n\nimport toylib\nfrom toyhelp.consts import STEP\n"
            "from lvsim_toy.policies import choose_nb\n"
        ),
        site / "toyhelp" / "__init__.py": "",
        site / "toyhelp" / "consts.py": "STEP = 2\n",
        site / "toyhelp" / "other.py": "x = 1\n",
        library / "toylib" / "__init__.py": "x = 1\n",  # an installed library
    })
    register(site, "lvsim_toy", "toygame")
    monkeypatch.syspath_prepend(str(library))
    monkeypatch.syspath_prepend(str(site))
    assert "toygame" in {ep.name for ep in entry_points(group=kc.GAMES_GROUP)}

    hashed = kc.kernel_sources()
    assert {"lvsim_toy/policies.py", "lvsim_toy/enums.py", "lvsim_toy/game.py", "toyhelp/consts.py"} <= set(hashed)
    assert "lvsim_toy" not in sys.modules  # found, not imported
    for changed in ("lvsim_toy/policies.py", "lvsim_toy/enums.py", "toyhelp/consts.py"):
        first = kc.source_digest()
        edit(site / changed)
        assert kc.source_digest() != first, changed
    assert "toyhelp/other.py" not in hashed and "toylib/__init__.py" not in hashed
    first = kc.source_digest()
    edit(library / "toylib" / "__init__.py")
    assert kc.source_digest() == first


def test_a_plugin_installed_into_site_packages_is_hashed(project, monkeypatch, tmp_path):
    library = tmp_path / "venv" / "lib" / "site-packages"
    write({
        library / "lvsim_toy" / "__init__.py": "",
        library / "lvsim_toy" / "game.py": "GAME = None\n",
        library / "lvsim_toy" / "policies.py": "from numba import njit\n",
    })
    register(library, "lvsim_toy", "toygame")
    monkeypatch.syspath_prepend(str(library))
    first = kc.source_digest()
    assert "lvsim_toy/policies.py" in kc.kernel_sources()
    edit(library / "lvsim_toy" / "policies.py")
    assert kc.source_digest() != first


def test_this_projects_kernels_and_registered_games_are_hashed_and_its_machinery_is_not():
    hashed = kc.kernel_sources()
    for label in ("sim/rng.py", "sim/bits.py", "sim/lasvegan/policies.py", "sim/lasvegan/enums.py",
                  "sim/vegasdice/nb.py", "sim/fever/policies.py", "analysis/stats.py",
                  "sim/lasvegan/report_tally.py"):
        assert label in hashed
    assert not [label for label in hashed if label.startswith(("sim/cli/", "sim/tune/", "sim/sweep/", "sim/runner/",
                                                                 "sim/workbench/", "sim/config.py"))]
    for ep in entry_points(group=kc.GAMES_GROUP):
        package = ep.module.partition(".")[0]
        if package not in ("sim", "analysis"):
            assert f"{package}/game.py" in hashed, ep


def test_the_cache_reads_the_group_the_registry_reads():
    assert kc.GAMES_GROUP == sim.games.GROUP


# A run of the plugin's greedy seats, as a new process plays it; its kernel cache is wherever lvsim puts it.
PLAY = """
import json, os
from sim.games import get_game
game = get_game("kernelcheck")
rules = game.Rules(players=3)
ids, params = game.parse_seats(["greedy"] * 3, 3)
records = game.play_games(rules, 7, 0, 300, ids, params, threads=1)
print(json.dumps({"cards": records["card"].tolist(), "cache": os.environ.get("NUMBA_CACHE_DIR")}))
"""


@pytest.mark.slow
def test_a_plugin_policy_edited_between_two_runs_is_played_as_edited(tmp_path):
    """High Card, copied as another game, plays; its greedy policy is edited; the next run plays the edit: the
    same cards as the sources run as Python, not the cards of the first run."""
    site = tmp_path / "plugins"
    package = site / "lvsim_kernelcheck"
    shutil.copytree(HIGHCARD, package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in package.glob("*.py"):
        path.write_text(path.read_text().replace("lvsim_highcard", "lvsim_kernelcheck")
                        .replace('GAME_ID = "highcard"', 'GAME_ID = "kernelcheck"'))
    register(site, "lvsim_kernelcheck", "kernelcheck")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
        PYTHONDONTWRITEBYTECODE="1",
        HOME=str(tmp_path / "home"),
        **{kc.ROOT_VARIABLE: str(tmp_path / "kernels")},
    )

    def play(**extra):
        done = subprocess.run([sys.executable, "-c", PLAY], env={**env, **extra}, capture_output=True, text=True,
                              cwd=tmp_path, timeout=900)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    before = play()
    assert Path(before["cache"]).parent == tmp_path / "kernels"
    assert any(Path(before["cache"]).rglob("*.nbi"))  # the kernels were cached

    policies = package / "policies.py"
    greedy_beats = "            if v > pub[E.P_BEST]:\n                return v\n"
    assert greedy_beats in policies.read_text()
    # greedy plays its lowest card, not the lowest that beats the table: nb.py, which calls it, is unchanged
    policies.write_text(policies.read_text().replace(greedy_beats, greedy_beats.replace("return v", "return lowest")))
    after = play()
    as_written = play(NUMBA_DISABLE_JIT="1")

    assert after["cache"] != before["cache"]
    assert after["cards"] != before["cards"]
    assert after["cards"] == as_written["cards"]
    assert not Path(before["cache"]).exists()  # the kernels of the old policy are dropped


def test_the_precompile_hands_out_its_jobs_longest_first_to_the_next_free_process(monkeypatch, tmp_path):
    """Every game's run by its declared compile time, then Las Vegan's tables alone (every policy its kernel of
    play calls directly, but its default, which its run compiles); never more processes at once than asked, a
    job starting as soon as one ends, and a job already compiled not started again."""
    import sim.precompile as pc
    from sim.games import GAME_IDS

    assert pc.alone_policies("lasvegan") == ["random", "greedy", "cautious"]
    assert pc.alone_policies("vegas-dice") == [] and pc.alone_policies("fever") == []
    order = pc.jobs(GAME_IDS)
    assert order[0] == "lasvegan" and order[-1] == "lasvegan:alone" and sorted(order[:-1]) == sorted(GAME_IDS)

    started, running, most, beside = [], set(), [0], {}

    class Child:
        def __init__(self, command, stdout):
            self.job, self.polls = command[-1], 3 if command[-1] == "lasvegan" else 1
            started.append(self.job)
            beside[self.job] = set(running)
            running.add(self.job)
            most[0] = max(most[0], len(running))

        def poll(self):
            self.polls -= 1
            if self.polls > 0:
                return None
            running.discard(self.job)
            return 0

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(pc.subprocess, "Popen", Child)
    monkeypatch.setattr(pc.time, "sleep", lambda seconds: None)
    (tmp_path / "compiled-fever").touch()
    assert pc.compile_in_processes(GAME_IDS, processes=2) == [job for job in order if job != "fever"]
    assert started == [job for job in order if job != "fever"] and most[0] == 2
    # Las Vegan's run is the long one: every other job started beside it, one after another.
    assert all(beside[job] == {"lasvegan"} for job in started[1:]), beside


def test_a_run_of_one_policy_alone_compiles_the_kernel_of_every_policy_alongside_once_heard_compiling(monkeypatch,
                                                                                                    tmp_path):
    """The default config (every seat expert, a kernel alone, then the skill gap on the kernel of every policy):
    nothing starts until the run is heard compiling Las Vegan; then one second process compiles the job
    ``lasvegan:every``, said after the compiling notice, and waited for before the other tables, saying when it
    is done. A run that compiles nothing, plays mixed seats, no other tables, a game without kernels alone or
    on a cluster starts none."""
    import dataclasses

    import sim.estimates.compiling as pc
    from sim.config import Config, load_config
    from sim.estimates.compiling import Compiles

    started = []

    class Child:
        returncode = 0

        def __init__(self, command, stdout, stderr):
            started.append(command[1:])

        def poll(self):
            return 0

        def wait(self):
            return 0

    heard_compiling = Compiles(clock=lambda: 0.0, timer=lambda seconds, call: threading.Timer(seconds, call))  # never runs out
    said = []
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(pc.subprocess, "Popen", Child)
    monkeypatch.setattr("sim.estimates.compiling.compiles", lambda: heard_compiling)
    default = load_config("configs/default.toml")
    alongside = pc.Alongside(default, in_process=True)
    assert alongside.wanted
    with heard_compiling.heard(said.append), alongside.watching():
        heard_compiling.started("sim.vegasdice.nb")  # another game's kernel: not this run's
        heard_compiling.ended()
        assert started == []
        heard_compiling.started("sim.lasvegan.nb")
        heard_compiling.started("sim.lasvegan.policies")  # a callee, inside
        heard_compiling.ended()
        heard_compiling.ended()
        heard_compiling.started("sim.lasvegan.report_tally")  # a second kernel: the process is not started again
        heard_compiling.ended()
        alongside.wait()
    assert started == [["-m", "sim.precompile", "lasvegan:every"]]
    said = [" ".join(line.split()) for line in said]  # as said, wrapped at 120 columns
    compiling_vegan = [i for i, line in enumerate(said) if line.startswith("Compiling the kernels of Las Vegan (")]
    beside = [i for i, line in enumerate(said) if line.startswith("Compiling the kernels of Las Vegan's other tables")]
    assert len(compiling_vegan) == 1 and len(beside) == 1 and compiling_vegan[0] < beside[0], said
    assert said[beside[0]].endswith("alongside, in a second process …")
    assert said[-1].startswith("Compiled the kernels of Las Vegan's other tables (skill gap, strength profile, "
                               "decisions) in ")

    # A run whose own kernels were in the cache (a tune's balance report) compiles its other tables itself: heard
    # compiling them only after its own games, it starts no second process to compile the same kernel beside it.
    loaded, before = pc.Alongside(default, in_process=True), len(said)
    with heard_compiling.heard(said.append), loaded.watching():
        loaded.wait()  # its own games played, nothing compiled
        heard_compiling.started("sim.lasvegan.nb")
        heard_compiling.ended()
    assert len(started) == 1 and not any("in a second process" in line for line in said[before:]), said

    assert not pc.Alongside(default, in_process=False).wanted
    assert not pc.Alongside(dataclasses.replace(default, seats=("expert", "greedy") * 2), in_process=True).wanted
    assert not pc.Alongside(dataclasses.replace(default, skill_gap_games=0, strength_slow_games=0),
                            in_process=True).wanted
    assert not pc.Alongside(Config(name="dice", game="vegas-dice"), in_process=True).wanted
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert not pc.Alongside(default, in_process=True).wanted  # no kernel cache: nothing would reach the run


def test_the_job_every_plays_a_table_on_the_kernel_of_every_policy():
    """``lasvegan:every`` plays a table of two policies with kernels alone, which the kernel of every policy plays;
    a game with fewer has no such job."""
    from sim.estimates.compiling import mixed_seats
    from sim.lasvegan import nb
    from sim.lasvegan.policies import parse_seats
    from sim.precompile import compile_every

    seats = mixed_seats("lasvegan")
    assert len(set(seats)) == 2 and len(seats) == 4
    assert nb.kernel_for(parse_seats(seats, 4)[0]) == "play_chunk_nb"
    assert mixed_seats("vegas-dice") is None and mixed_seats("highcard") is None
    compile_every("lasvegan")
    assert nb.play_chunk_nb.signatures
