"""The workbench's web application: the page, its script and style, and the JSON API they call.

Every route, and what it answers:

- ``GET /``: the page; ``GET /static/...``: its script and style, served
  from this package (nothing is fetched from elsewhere);
- ``GET /api/games``: the games, their form (``sim.workbench.fields``);
- ``POST /api/plays`` with the form's fields (config key -> text): 202 and
  the play's id, or 400 and the one line of the config check naming the
  field; ``GET /api/plays/{id}``: where it stands, its headline metrics
  once played; ``POST /api/plays/{id}/cancel``; ``GET /api/plays``: every
  play the server holds, in the order asked, each as ``GET /api/plays/{id}``
  answers it (a reloaded page, or a second one, rebuilds its list from it);
- ``GET /api/compare?baseline=ID&other=ID``: paired differences on the
  same deals (the sweep's, ``analysis.sweep.paired_differences``);
- ``GET /api/config.toml?<fields>``: the config as a TOML file ``lvsim
  run`` takes; ``GET /api/plays/{id}/report.html``: the run's full report;
- ``GET /api/plays/{id}/sensitivity``: what moves the verdict, when the
  installed simulator has it (``sim.sensitivity``);
  ``GET /api/plays/{id}/sensitivity.html``: the report's section of it, its
  tornado figures drawn; ``GET /api/plays/{id}/report.html?inline=true``:
  the report shown in the page rather than downloaded;
- ``GET /api/tune-template?<fields>``: a small tune of the form's rules to
  start from (``sim.workbench.tunes``); ``POST /api/tunes`` with
  ``{"fields": ..., "tables": "<[search], [targets], [tune] as TOML>"}``:
  202 and the tune's id, or 400 naming the key; ``GET /api/tunes/{id}``:
  where it stands, its answer once done; ``POST /api/tunes/{id}/cancel``;
  ``GET /api/tunes``: every tune the server holds, in the order asked;
  ``GET /api/tunes/{id}/best.toml``: the recommended rules as a config;
  ``GET /api/tunes/{id}/tune.toml``: the tune file, its base beside it.

A request the config checks refuse is answered 400 with ``{"field",
"error"}``; the page shows the line and marks the field.
"""

from __future__ import annotations

import importlib.util
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from sim.errors import ConfigError, one_line
from sim.workbench.fields import config_of, game_form
from sim.workbench.jobs import Workbench
from sim.workbench.states import Unknown

STATIC = Path(__file__).resolve().parent / "static"


def sensitivity_available() -> bool:
    """Whether this installation has the sensitivity study ("what moves the verdict")."""
    return importlib.util.find_spec("sim.sensitivity") is not None


def create_app(workbench: Workbench | None = None) -> FastAPI:
    """The application; ``workbench`` holds its plays (a new one by default, closed when the app stops)."""
    bench = workbench or Workbench()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        bench.close()

    app = FastAPI(title="lvsim workbench", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.workbench = bench

    @app.exception_handler(ConfigError)
    async def refused(request: Request, err: ConfigError):
        # The field as the line names it: a key the request made up may hold what JSON text cannot (a lone surrogate).
        return JSONResponse({"field": one_line(err.field), "error": one_line(str(err))},
                            status_code=404 if isinstance(err, Unknown) else 400)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError):
        """A missing or malformed query parameter (``/api/compare`` without ``other``): the same one line."""
        first = err.errors()[0] if err.errors() else {}
        field = str((first.get("loc") or ("request",))[-1])
        return await refused(request, ConfigError(field, str(first.get("msg", "is malformed")).lower()))

    @app.get("/", include_in_schema=False)
    def page():
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def no_icon():
        return Response(status_code=204)

    @app.get("/api/games")
    def games() -> dict[str, Any]:
        from sim.games import GAME_IDS

        return {"games": [game_form(g) for g in GAME_IDS], "sensitivity": sensitivity_available()}

    @app.post("/api/plays", status_code=202)
    async def play(request: Request) -> dict[str, Any]:
        fields = await _fields(request)
        # Checking a config and queueing its play take microseconds, but the estimate and the games run on
        # the workbench's worker thread: the answer comes at once.
        return bench.submit(fields).view()

    @app.get("/api/plays")
    def plays() -> dict[str, Any]:
        return {"plays": [job.view() for job in bench.plays()]}

    @app.get("/api/plays/{job_id}")
    def one_play(job_id: str) -> dict[str, Any]:
        return bench.job(job_id).view()

    @app.post("/api/plays/{job_id}/cancel")
    def cancel(job_id: str) -> dict[str, Any]:
        return bench.cancel(job_id).view()

    @app.get("/api/compare")
    def compare(baseline: str, other: str) -> dict[str, Any]:
        return bench.compare(baseline, other)

    @app.get("/api/config.toml")
    def config_toml(request: Request) -> Response:
        config = config_of(dict(request.query_params))
        return PlainTextResponse(config.to_toml(), media_type="application/toml",
                                 headers={"Content-Disposition": f'attachment; filename="{config.game}.toml"'})

    @app.get("/api/plays/{job_id}/config.toml")
    def play_toml(job_id: str) -> Response:
        job = bench.job(job_id)
        return PlainTextResponse(job.config.to_toml(), media_type="application/toml",
                                 headers={"Content-Disposition": f'attachment; filename="{job.config.game}-{job_id}.toml"'})

    @app.get("/api/plays/{job_id}/report.html")
    def report(job_id: str, inline: bool = False) -> Response:
        path = bench.report(job_id)
        return FileResponse(path, media_type="text/html", filename=f"report-{job_id}.html",
                            content_disposition_type="inline" if inline else "attachment")

    # --- what moves the verdict: the sensitivity section's one place ------------------------------
    @app.get("/api/plays/{job_id}/sensitivity")
    def sensitivity(job_id: str) -> dict[str, Any]:
        """The play's sensitivity (``summary["sensitivity"]``, which runs have when ``sim.sensitivity`` is
        installed); ``available`` false otherwise."""
        job = bench.finished(job_id)
        found = (job.summary or {}).get("sensitivity")
        return {"available": sensitivity_available(), "sensitivity": found}

    @app.get("/api/plays/{job_id}/sensitivity.html")
    def sensitivity_html(job_id: str) -> Response:
        """The report's "What moves the verdict" of the play, figures drawn (the page shows it as it is)."""
        return HTMLResponse(bench.sensitivity_section(job_id))

    @app.get("/api/plays/{job_id}/decisions.html")
    def decisions_html(job_id: str) -> Response:
        """The report's "Which decisions matter" of the play: each kind made at random, what it costs."""
        return HTMLResponse(bench.decisions_section(job_id))

    # --- tunes ------------------------------------------------------------------------------------
    @app.get("/api/tune-template")
    def tune_template(request: Request) -> dict[str, Any]:
        from sim.workbench.tunes import template

        return {"tables": template(config_of(dict(request.query_params)))}

    @app.post("/api/tunes", status_code=202)
    async def start_tune(request: Request) -> dict[str, Any]:
        data = await _json_object(request)
        fields = data.get("fields")
        if not isinstance(fields, dict):
            raise ConfigError("fields", "must be the form's fields: a JSON object of config keys and values")
        tables = data.get("tables")
        if not isinstance(tables, str):
            raise ConfigError("tune", "must be the tune file's tables ([search], [targets], [tune]) as TOML text")
        return bench.submit_tune(_as_fields(fields), tables).view()

    @app.get("/api/tunes")
    def tunes() -> dict[str, Any]:
        return {"tunes": [job.view() for job in bench.tune_jobs()]}

    @app.get("/api/tunes/{tune_id}")
    def one_tune(tune_id: str) -> dict[str, Any]:
        return bench.tune_job(tune_id).view()

    @app.post("/api/tunes/{tune_id}/cancel")
    def cancel_tune(tune_id: str) -> dict[str, Any]:
        return bench.cancel_tune(tune_id).view()

    @app.get("/api/tunes/{tune_id}/best.toml")
    def best_toml(tune_id: str) -> Response:
        from sim.tune.directory import BEST_FILE
        from sim.workbench.tunes import TUNE_FILE

        job = bench.tune_job(tune_id)
        path = job.out_dir / BEST_FILE
        if job.state != "done" or not path.is_file():
            raise ConfigError("tune", f"tune {tune_id} is {job.state}, not done")
        # It names the tune file it came from: the one the page downloads, not the server's copy, gone when it stops.
        text = path.read_text(encoding="utf-8").replace(str(job.dir / TUNE_FILE), _tune_name(job))
        return _toml_download(text, f"{job.config.game}-{tune_id}-best.toml")

    @app.get("/api/tunes/{tune_id}/tune.toml")
    def tune_toml(tune_id: str) -> Response:
        from sim.workbench.tunes import BASE_FILE

        job = bench.tune_job(tune_id)
        text = (f"# The tune started from the workbench. Its base, the page's rules when it started, is its "
                f"base.toml download (/api/tunes/{tune_id}/base.toml): save it beside this file as {BASE_FILE}.\n"
                f"# Run it with: lvsim tune {_tune_name(job)}\n"
                f'base = "{BASE_FILE}"\n\n{job.tables}')
        return _toml_download(text, _tune_name(job))

    @app.get("/api/tunes/{tune_id}/base.toml")
    def tune_base(tune_id: str) -> Response:
        from sim.workbench.tunes import BASE_FILE

        return _toml_download(bench.tune_job(tune_id).config.to_toml(), BASE_FILE)

    return app


def _tune_name(job) -> str:
    """The name the page downloads a tune's file under."""
    return f"{job.config.game}-{job.id}.toml"


def _toml_download(text: str, filename: str) -> Response:
    return PlainTextResponse(text, media_type="application/toml",
                             headers={"Content-Disposition": f'attachment; filename="{filename}"'})


async def _json_object(request: Request) -> dict[str, Any]:
    """A request's body: a JSON object, sent as JSON (a page elsewhere cannot send one without asking first, so it
    cannot start a play here), nested no deeper than a config file."""
    from sim.inputs import parse_json

    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ConfigError("request", f"must be sent as application/json, not {kind or 'no content type'}")
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("request", "is not UTF-8 text") from None
    data = parse_json(text, lambda problem: ConfigError("request", f"is {problem}"))
    if not isinstance(data, dict):
        raise ConfigError("request", "is not a JSON object of config keys and values")
    return data


async def _fields(request: Request) -> dict[str, str]:
    """The form's fields of a request: a JSON object of config key -> text."""
    return _as_fields(await _json_object(request))


def _as_fields(data: dict[str, Any]) -> dict[str, str]:
    return {str(k): v if isinstance(v, str) else _text(v) for k, v in data.items()}


def _text(value: Any) -> str:
    """A JSON value given where the form sends text: written as its field would hold it."""
    import json

    return json.dumps(value)
