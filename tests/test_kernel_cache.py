import os

import sim._kernel_cache as kc


def test_the_cache_directory_follows_the_sources(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "nb.py").write_text("from numba import njit\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    monkeypatch.setattr(kc, "PACKAGE", pkg)

    def cache_dir_of_a_new_process():
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        kc.use_keyed_cache()
        return os.environ["NUMBA_CACHE_DIR"]

    first = cache_dir_of_a_new_process()
    assert cache_dir_of_a_new_process() == first  # unchanged sources reuse their kernels

    (pkg / "sub" / "b.py").write_text("y = 3\n")  # a policy changes, the kernel file does not
    second = cache_dir_of_a_new_process()
    assert second != first
    assert not os.path.exists(first)  # stale kernels are dropped


def test_a_cache_dir_set_by_the_user_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    kc.use_keyed_cache()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_editing_the_machinery_around_the_kernels_keeps_them(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "game").mkdir(parents=True)
    (pkg / "tune").mkdir()
    (pkg / "rng.py").write_text("from numba import njit\n")
    (pkg / "cli.py").write_text("x = 1\n")
    (pkg / "game" / "nb.py").write_text("from numba import njit\n")
    (pkg / "game" / "enums.py").write_text("A = 1\n")  # constants a kernel reads: no njit in sight
    (pkg / "tune" / "search.py").write_text("x = 1\n")  # a package with no kernel: machinery
    monkeypatch.setattr(kc, "PACKAGE", pkg)
    first = kc.source_digest()
    (pkg / "cli.py").write_text("x = 2\n")
    (pkg / "tune" / "search.py").write_text("x = 2\n")
    assert kc.source_digest() == first
    for changed in (pkg / "rng.py", pkg / "game" / "enums.py"):
        changed.write_text(changed.read_text() + "# changed\n")
        assert kc.source_digest() != first
        first = kc.source_digest()
