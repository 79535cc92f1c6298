"""The workbench served: uvicorn on a loopback address by default, everything it wrote removed when it stops."""

from __future__ import annotations

import errno
import socket
from typing import Callable

from sim.errors import ConfigError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, say: Callable[[str], None] = print,
          max_seconds: float | None = None) -> None:
    """Serve the workbench on ``host:port`` until Ctrl-C or SIGTERM; ``say`` is told the page's address.

    The port is checked before anything starts, so a port in use is one line
    naming ``--port``. On stopping, a play under way is cancelled and the
    workbench's directory of results is removed.
    """
    import uvicorn

    from sim.workbench.app import create_app
    from sim.workbench.jobs import MAX_PLAY_SECONDS, Workbench

    sock = _bound(host, port)
    workbench = Workbench(MAX_PLAY_SECONDS if max_seconds is None else max_seconds)
    # The first game's kernels loaded and its costs timed while the page opens, before the first play asks.
    workbench.warm_up()
    try:
        app = create_app(workbench)
        config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
        server = uvicorn.Server(config)
        shown_host = f"[{host}]" if ":" in host else host
        say(f"lvsim workbench: http://{shown_host}:{sock.getsockname()[1]}/ (Ctrl-C stops it)")
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:  # uvicorn hands Ctrl-C or SIGTERM back once it has stopped: stopping is the end
            pass
    finally:
        workbench.close()
        sock.close()


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: any free port), or a ConfigError naming the option."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise ConfigError("--host", f"{host!r} is not an address of this machine ({err.strerror})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as err:
        sock.close()
        field = "--port" if err.errno in (errno.EADDRINUSE, errno.EACCES) else "--host"
        raise ConfigError(field, f"cannot listen on {host}:{port}: {err.strerror}") from None
    sock.listen(64)
    return sock
