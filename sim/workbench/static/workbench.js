// The workbench page: a form made from the game's knobs, plays, their list, comparisons on the same deals.
// Every field is named by the config key it sets; the page's query string holds the fields that differ
// from the rulebook, so a copied address sets the same game again. Its fragment holds the pair of plays
// compared (`#baseline=p1&other=p2`). The plays and tunes are the server's: on loading, the page lists
// those the server holds, so a reload or a second page shows them and follows those still playing.
"use strict";

const state = { games: {}, game: null, plays: [], current: null, polling: null, selection: {}, compared: null,
                tunes: [], currentTune: null, tunePolling: null, tune: null };
const $ = (sel, root = document) => root.querySelector(sel);
const form = $("#setup");

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// --- values as a config writes them ------------------------------------------------------------

function sameValue(a, b) {
  const norm = (t) => { try { return JSON.stringify(JSON.parse(t)); } catch (e) { return String(t).trim(); } };
  return norm(a) === norm(b);
}

function defaults() {
  const g = state.game;
  const players = form.elements["rules.players"] ? form.elements["rules.players"].value : "";
  const atPlayers = g.defaults_at_players[players] || {};
  const out = {};
  for (const k of g.knobs) out[k.key] = k.key in atPlayers ? atPlayers[k.key] : k.default;
  out["policies.seats"] = g.default_policy;
  return out;
}

// The fields a play sends: game, games, seed and players always; a rule or the seats only when changed.
function fields() {
  const base = defaults();
  const out = { game: state.game.id, "run.games": form.elements["run.games"].value.trim(),
                "run.seed": form.elements["run.seed"].value.trim() };
  for (const k of state.game.knobs) {
    const value = form.elements[k.key].value;
    if (k.key === "rules.players" || !sameValue(value, base[k.key])) out[k.key] = value;
  }
  const seats = form.elements["policies.seats"].value;
  if (!sameValue(seats, base["policies.seats"])) out["policies.seats"] = seats;
  return out;
}

function markChanged() {
  const base = defaults();
  for (const k of [...state.game.knobs.map((k) => k.key), "policies.seats"]) {
    const input = form.elements[k];
    const changed = k !== "rules.players" && !sameValue(input.value, base[k]);
    input.closest(".field").classList.toggle("changed", changed);
  }
  writeAddress();
}

// The setup in the query (config keys only, as a request sends them), the pair compared in the fragment.
function writeAddress() {
  const query = new URLSearchParams(fields()).toString();
  const pair = state.compared ? `#${new URLSearchParams(state.compared).toString()}` : "";
  history.replaceState(null, "", `${location.pathname}?${query}${pair}`);
}

// --- the form ----------------------------------------------------------------------------------

function knobInput(k) {
  const d = k.domain;
  let input;
  if (d.kind === "integer") {
    input = el("input", { type: "number", min: d.min, max: d.max, step: 1, inputmode: "numeric" });
  } else if (d.kind === "choice" || d.kind === "boolean") {
    input = el("select");
    for (const o of d.kind === "boolean" ? ["true", "false"] : d.options) input.append(el("option", { value: o, text: o }));
  } else {
    input = el("input", { type: "text", spellcheck: "false" });
  }
  input.name = k.key;
  input.value = k.default;
  return input;
}

function buildForm(gameId, values = {}) {
  const g = state.games[gameId];
  state.game = g;
  form.elements.game.value = g.id;
  const knobs = $("#knobs");
  knobs.replaceChildren();
  for (const k of g.knobs) {
    const label = el("span", { class: "label", text: k.label }, el("span", { class: "changed-mark", text: "changed" }));
    knobs.append(el("label", { class: "field", title: `${k.key}: ${k.values}` }, label, knobInput(k),
                    el("span", { class: "help", text: k.help || k.values })));
  }
  const list = $("#policy-names");
  list.replaceChildren(...g.policies.map((p) => el("option", { value: p.name })));
  $("#policies dl").replaceChildren(...g.policies.flatMap((p) => [el("dt", { text: p.syntax }),
                                                                  el("dd", { text: p.description })]));
  form.elements["run.games"].value = values["run.games"] || g.run["run.games"];
  form.elements["run.seed"].value = values["run.seed"] || g.run["run.seed"];
  form.elements["policies.seats"].value = g.default_policy;
  if (values["rules.players"] && form.elements["rules.players"]) form.elements["rules.players"].value = values["rules.players"];
  const base = defaults();
  for (const k of g.knobs) form.elements[k.key].value = base[k.key];
  for (const [key, value] of Object.entries(values)) {
    if (key !== "game" && form.elements[key]) form.elements[key].value = value;
  }
  markChanged();
}

// --- refusals ----------------------------------------------------------------------------------

function showError(line, field) {
  const box = $("#error");
  for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
  if (!line) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = `error: ${line}`;
  const name = field && field.replace(/\[\d+\].*$/, "");
  if (name && form.elements[name]) form.elements[name].setAttribute("aria-invalid", "true");
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json();
  if (!response.ok) {
    const err = new Error(body.error || response.statusText);
    err.field = body.field;
    err.status = response.status;
    throw err;
  }
  return body;
}

// --- showing numbers ---------------------------------------------------------------------------

function decimals(halfWidth, scale) {
  if (!(halfWidth > 0)) return 1;
  return Math.max(0, Math.min(4, 1 - Math.floor(Math.log10(halfWidth * scale))));
}

function shown(kind, value, d) {
  if (value === null || value === undefined) return "n/a";
  if (kind === "rate") return `${(100 * value).toFixed(d)}%`;
  if (kind === "advantage") return `${value >= 0 ? "+" : "\u2212"}${Math.abs(100 * value).toFixed(d)} pts`;
  return value.toFixed(d);
}

function showMetrics(play) {
  const s = play.summary;
  const box = $("[data-metrics]");
  box.replaceChildren();
  for (const m of state.games[play.fields.game].metrics) {
    const value = s[m.key];
    const ci = s[`${m.key}_ci`];
    const scale = m.kind === "mean" ? 1 : 100;
    const d = ci ? decimals((ci[1] - ci[0]) / 2, scale) : 1;
    const card = el("div", {},
      el("dt", { text: m.label }),
      el("dd", { class: "big", "data-metric": m.key, "data-value": JSON.stringify(value), text: shown(m.kind, value, d) }));
    if (ci) {
      card.append(el("dd", { class: "note" }, "95% CI ",
        el("span", { "data-metric": `${m.key}_ci`, "data-value": JSON.stringify(ci),
                     text: `${shown(m.kind, ci[0], d)} to ${shown(m.kind, ci[1], d)}` })));
    }
    box.append(card);
  }
  const changed = Object.entries(play.differences).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  $("[data-setup]").textContent = `${state.games[play.fields.game].title}, ${s.players} players, ` +
    `${s.games.toLocaleString("en")} games, seed ${s.seed}, seats ${play.seats.join(", ")}; ` +
    (changed.length ? `rules changed: ${changed.join("; ")}` : "the rulebook's rules");
  const verdict = s.strength && s.strength.verdict ? s.strength.verdict.sentence : "";
  $("[data-verdict]").textContent = play.complete ? verdict : "Measuring the skill gap and the strength profile\u2026";
  for (const span of document.querySelectorAll("#result [data-play-id]")) span.textContent = play.id;
  $("#result").hidden = false;
  $("#result").dataset.play = play.id;
  $("#result").dataset.complete = play.complete ? "true" : "false";
}

// --- plays -------------------------------------------------------------------------------------

function updatePlays() {
  const rows = $("[data-plays]");
  rows.replaceChildren();
  for (const p of state.plays) {
    const changed = Object.entries(p.differences).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("; ") || "rulebook";
    const radio = (name) => {
      const input = el("input", { type: "radio", name, value: p.id, "aria-label": `${name} ${p.id}`,
                                  checked: state.selection[name] === p.id ? "" : null,
                                  disabled: p.state === "done" ? null : "" });
      input.addEventListener("change", () => { state.selection[name] = p.id; });
      return input;
    };
    const load = el("button", { type: "button", "data-action": "load", text: "Load" });
    load.addEventListener("click", () => { buildForm(p.fields.game, p.fields); showError(null); });
    rows.append(el("tr", { "data-play": p.id, class: p.id === state.current ? "current" : null },
      el("td", {}, radio("baseline")), el("td", {}, radio("other")),
      el("td", { text: p.id }), el("td", { text: changed }), el("td", { text: p.seats.join(", ") }),
      el("td", { class: "num", text: p.games.toLocaleString("en") }), el("td", { class: "num", text: p.fields["run.seed"] }),
      el("td", { "data-state": p.state, text: p.error ? `${p.state}: ${p.error}` : p.state }), el("td", {}, load)));
  }
  $("#plays").hidden = state.plays.length === 0;
}

function remember(play) {
  const i = state.plays.findIndex((p) => p.id === play.id);
  if (i >= 0) state.plays[i] = play; else state.plays.push(play);
  updatePlays();
}

const FINISHED = ["done", "refused", "cancelled", "failed"];
const finished = (job) => FINISHED.includes(job.state);
const STATUS = { queued: "waiting for the play before it", estimating: "estimating its time",
                 playing: "playing", measuring: "measuring the skill gap and the strength profile" };

// The play the page shows: its progress while it plays, its metrics once played, its report once done.
function showPlay(play) {
  const bar = $("#progress progress");
  bar.max = play.games;
  bar.value = play.games_played;
  $("#progress [data-play-id]").textContent = play.id;
  $("#progress [data-status]").textContent =
    `${STATUS[play.state] || play.state}: ${play.games_played.toLocaleString("en")} of ${play.games.toLocaleString("en")} games`;
  $("#progress").hidden = finished(play);
  if (play.summary) showMetrics(play);
  if (play.state === "done") { showDecisions(play); showSensitivity(play); showReport(play); }
}

async function follow(id) {
  const play = await api(`/api/plays/${id}`);
  remember(play);
  if (id !== state.current) return;
  showPlay(play);
  if (play.state === "refused" || play.state === "failed") showError(play.error, (play.error || "").split(":")[0]);
}

// Every play of the list not yet finished is asked about until it is: the one shown and those before it.
function followPlays() {
  if (state.polling || state.plays.every(finished)) return;
  let asking = false;
  state.polling = setInterval(async () => {
    if (asking) return;
    asking = true;
    try {
      for (const p of state.plays.filter((p) => !finished(p))) await follow(p.id);
      if (state.plays.every(finished)) { clearInterval(state.polling); state.polling = null; }
      await comparePending();
    } catch (e) {
      showError(e.message, e.field);
    } finally {
      asking = false;
    }
  }, 200);
}

async function play(event) {
  event.preventDefault();
  showError(null);
  let started;
  try {
    started = await api("/api/plays", { method: "POST", headers: { "Content-Type": "application/json" },
                                        body: JSON.stringify(fields()) });
  } catch (err) {
    showError(err.message, err.field);
    return;
  }
  state.current = started.id;
  remember(started);
  $("#result").hidden = true;
  showPlay(started);
  followPlays();
}

async function cancel() {
  if (state.current) await api(`/api/plays/${state.current}/cancel`, { method: "POST" });
}

// The pair of the address compared again, once both plays have finished (at once if they have); a pair this
// server does not hold is refused in the server's line and leaves the address.
async function comparePending() {
  const pair = state.pendingCompare;
  if (!pair) return;
  const plays = [pair.baseline, pair.other].map((id) => state.plays.find((p) => p.id === id));
  if (plays.some((p) => p && !finished(p))) return;
  state.pendingCompare = null;
  if (!(await compare())) { state.compared = null; writeAddress(); }
}

async function compare() {
  const { baseline, other } = state.selection;
  if (!baseline || !other) { showError("compare: pick a baseline and another play", null); return false; }
  let result;
  try {
    result = await api(`/api/compare?baseline=${encodeURIComponent(baseline)}&other=${encodeURIComponent(other)}`);
  } catch (err) {
    showError(err.message, null);
    return false;
  }
  showError(null);
  state.compared = { baseline: result.baseline, other: result.other };
  writeAddress();
  $("[data-compare-title]").textContent = `${result.other} minus ${result.baseline}`;
  const rows = $("[data-compare-rows]");
  rows.replaceChildren();
  for (const m of result.metrics) {
    const scale = m.kind === "mean" ? 1 : 100;
    const lo = m.difference_lo, hi = m.difference_hi;
    const d = lo === null ? 2 : decimals((hi - lo) / 2, scale) + 1;
    const diff = m.kind === "mean" ? (v) => (v === null ? "n/a" : `${v >= 0 ? "+" : "\u2212"}${Math.abs(v).toFixed(d)}`)
                                   : (v) => shown("advantage", v, d);
    rows.append(el("tr", { "data-compare": m.key },
      el("td", { text: m.label }),
      el("td", { class: "num", "data-value": JSON.stringify(m.difference), text: diff(m.difference) }),
      el("td", { class: "num", "data-interval": JSON.stringify([lo, hi]), text: `${diff(lo)} to ${diff(hi)}` }),
      el("td", { class: "num", text: `${diff(m.unpaired_lo)} to ${diff(m.unpaired_hi)}` }),
      el("td", { class: "num", text: m.games.toLocaleString("en") })));
  }
  $("#compare").hidden = false;
  return true;
}

// Which decisions matter: the report's table of the play (each kind made at random, what it costs).
async function showDecisions(play) {
  const section = $("#decisions");
  const response = await fetch(`/api/plays/${play.id}/decisions.html`);
  if (!response.ok) { section.hidden = true; return; }
  // The server's own HTML (the report's table): every text in it is escaped there.
  $("[data-decisions]").innerHTML = await response.text();
  section.dataset.play = play.id;
  section.hidden = false;
}

// What moves the verdict: the report's section of the play (its tornado figures and sentences), when installed.
async function showSensitivity(play) {
  const section = $("#sensitivity");
  if (!state.sensitivity) { section.hidden = true; return; }
  const response = await fetch(`/api/plays/${play.id}/sensitivity.html`);
  if (!response.ok) { section.hidden = true; return; }
  // The server's own HTML (the report's section): every text in it is escaped there.
  $("[data-sensitivity]").innerHTML = await response.text();
  section.dataset.play = play.id;
  section.hidden = false;
}

// The play's full report in the page: its figures and every table, as `lvsim report` writes it.
function showReport(play) {
  const frame = $("[data-report-frame]");
  frame.dataset.play = play.id;
  if ($("[data-report-view]").open) frame.src = `/api/plays/${play.id}/report.html?inline=true`;
  else frame.removeAttribute("src");
}

// --- tunes -------------------------------------------------------------------------------------

function showTuneError(line) {
  const box = $("#tune-error");
  box.hidden = !line;
  box.textContent = line ? `error: ${line}` : "";
}

async function tuneTemplate() {
  const query = new URLSearchParams(fields()).toString();
  try {
    const { tables } = await api(`/api/tune-template?${query}`);
    $("[data-tune-tables]").value = tables;
    showTuneError(null);
  } catch (err) {
    showError(err.message, err.field);
  }
}

const TUNE_STATUS = { queued: "waiting for the play before it", estimating: "estimating its time", tuning: "tuning" };

// The tune the section shows: its progress while it tunes, then its answer or the line that ended it.
function showTune(t) {
  state.currentTune = t.id;
  $("#tune").dataset.tune = t.id;
  $("#tune").dataset.state = t.state;
  const bar = $("#tune-progress progress");
  const played = t.games_played;
  const [low, likely, high] = t.games_said || [0, 0, 0];
  const n = (x) => x.toLocaleString("en");
  bar.max = Math.max(likely, played, 1);
  bar.value = played;
  // The estimate's range, as the dry run says it: a tune plays fewer when its finalists are decided early.
  const said = !t.games_said ? "" : played > high ? `, more than the ${n(high)} estimated at most`
    : ` of likely ${n(likely)} (${n(low)} to ${n(high)})`;
  $("[data-tune-status]").textContent = `${TUNE_STATUS[t.state] || t.state}: ${n(played)} games${said}`;
  $("#tune-progress").hidden = finished(t);
  $("#tune-result").hidden = t.state !== "done";
  if (!finished(t)) return;
  if (t.state !== "done") { showTuneError(t.error || t.state); return; }
  showTuneError(null);
  state.tune = t;
  $("[data-tune-headline]").textContent = t.answer.verdict.headline;
  $("[data-tune-sentence]").textContent = t.answer.recommendation.sentence;
  $("[data-tune-changes]").replaceChildren(...t.answer.recommendation.changes.map((c) =>
    el("li", { text: `${c.what}: ${JSON.stringify(c.from)} \u2192 ${JSON.stringify(c.to)}` })));
}

// The server's tunes: each with its base and where it stands; "Show" puts its tables and answer in the section.
function updateTunes() {
  const rows = $("[data-tunes]");
  rows.replaceChildren();
  for (const t of state.tunes) {
    const base = Object.entries(t.fields).filter(([k]) => k.startsWith("rules.") && k !== "rules.players")
      .map(([k, v]) => `${k.slice("rules.".length)} = ${v}`).join("; ") || "rulebook";
    const answer = t.state === "done" ? t.answer.verdict.headline : (t.error ? `${t.state}: ${t.error}` : t.state);
    const show = el("button", { type: "button", "data-action": "tune-show", text: "Show" });
    show.addEventListener("click", () => {
      $("[data-tune-tables]").value = t.tables;
      showTuneError(null);
      showTune(t);
      updateTunes();
    });
    rows.append(el("tr", { "data-tune": t.id, class: t.id === state.currentTune ? "current" : null },
      el("td", { text: t.id }), el("td", { text: state.games[t.fields.game].title }), el("td", { text: base }),
      el("td", { class: "num", text: t.fields["run.seed"] }), el("td", { "data-state": t.state, text: answer }),
      el("td", {}, show)));
  }
  $("#tunes").hidden = state.tunes.length === 0;
}

function rememberTune(t) {
  const i = state.tunes.findIndex((x) => x.id === t.id);
  if (i >= 0) state.tunes[i] = t; else state.tunes.push(t);
  updateTunes();
}

async function followTune(id) {
  const t = await api(`/api/tunes/${id}`);
  rememberTune(t);
  if (id === state.currentTune) showTune(t);
}

function followTunes() {
  if (state.tunePolling || state.tunes.every(finished)) return;
  let asking = false;
  state.tunePolling = setInterval(async () => {
    if (asking) return;
    asking = true;
    try {
      for (const t of state.tunes.filter((t) => !finished(t))) await followTune(t.id);
      if (state.tunes.every(finished)) { clearInterval(state.tunePolling); state.tunePolling = null; }
    } catch (e) {
      showTuneError(e.message);
    } finally {
      asking = false;
    }
  }, 300);
}

async function startTune() {
  showTuneError(null);
  showError(null);
  let started;
  try {
    started = await api("/api/tunes", { method: "POST", headers: { "Content-Type": "application/json" },
                                        body: JSON.stringify({ fields: fields(), tables: $("[data-tune-tables]").value }) });
  } catch (err) {
    showTuneError(err.field ? `${err.message}` : err.message);
    return;
  }
  state.currentTune = started.id;
  rememberTune(started);
  showTune(started);
  followTunes();
}

// What the server holds, as the page showed it before a reload: the plays listed, the one asked for last shown
// (followed if it still plays), the pair of the address compared; the last tune shown with its tables.
async function restore(pair) {
  const [{ plays }, { tunes }] = await Promise.all([api("/api/plays"), api("/api/tunes")]);
  state.plays = plays;
  const shown = [...plays].reverse().find((p) => !finished(p)) || [...plays].reverse().find((p) => p.state === "done");
  if (shown) state.current = shown.id;
  updatePlays();
  if (shown) showPlay(shown);
  followPlays();
  state.tunes = tunes;
  if (tunes.length) {
    const last = tunes[tunes.length - 1];
    $("[data-tune-tables]").value = last.tables;
    showTune(last);
  }
  updateTunes();
  followTunes();
  if (pair.baseline && pair.other) {
    state.selection = { baseline: pair.baseline, other: pair.other };
    state.pendingCompare = { ...state.selection };
    updatePlays();
    await comparePending();
  }
}

function download(path) {
  const a = el("a", { href: path, download: "" });
  document.body.append(a);
  a.click();
  a.remove();
}

async function start() {
  const { games, sensitivity } = await api("/api/games");
  state.sensitivity = sensitivity;
  const select = form.elements.game;
  for (const g of games) {
    state.games[g.id] = g;
    select.append(el("option", { value: g.id, text: `${g.title} (${g.id})` }));
  }
  const query = Object.fromEntries(new URLSearchParams(location.search));
  const pair = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  if (pair.baseline && pair.other) state.compared = { baseline: pair.baseline, other: pair.other };
  buildForm(query.game in state.games ? query.game : games[0].id, query);
  select.addEventListener("change", () => buildForm(select.value));
  // A new player count moves the rulebook's values that depend on it (cards set aside): a field still at the
  // rulebook's value for the old count takes the new count's.
  let before = defaults();
  form.addEventListener("focusin", (e) => { if (e.target.name === "rules.players") before = defaults(); });
  form.addEventListener("input", (e) => {
    if (e.target.name === "rules.players") {
      const after = defaults();
      for (const k of state.game.knobs) {
        const input = form.elements[k.key];
        if (k.key !== "rules.players" && sameValue(input.value, before[k.key])) input.value = after[k.key];
      }
      before = after;
    }
    if (e.target !== select) markChanged();
  });
  form.addEventListener("change", (e) => { if (e.target !== select) markChanged(); });
  form.addEventListener("submit", play);
  $("[data-action=reset]").addEventListener("click", () => buildForm(state.game.id));
  $("[data-action=toml]").addEventListener("click", async () => {
    const query = new URLSearchParams(fields()).toString();
    const response = await fetch(`/api/config.toml?${query}`);
    if (!response.ok) { const body = await response.json(); showError(body.error, body.field); return; }
    showError(null);
    download(`/api/config.toml?${query}`);
  });
  $("[data-action=cancel]").addEventListener("click", cancel);
  $("[data-action=compare]").addEventListener("click", compare);
  $("[data-action=report]").addEventListener("click", () => download(`/api/plays/${$("#result").dataset.play}/report.html`));
  $("[data-action=play-toml]").addEventListener("click", () => download(`/api/plays/${$("#result").dataset.play}/config.toml`));
  $("[data-report-view]").addEventListener("toggle", () => {
    const frame = $("[data-report-frame]");
    if ($("[data-report-view]").open && frame.dataset.play && !frame.getAttribute("src")) {
      frame.src = `/api/plays/${frame.dataset.play}/report.html?inline=true`;
    }
  });
  $("[data-action=tune-template]").addEventListener("click", tuneTemplate);
  $("[data-action=tune]").addEventListener("click", startTune);
  $("[data-action=tune-cancel]").addEventListener("click", async () => {
    if (state.currentTune) await api(`/api/tunes/${state.currentTune}/cancel`, { method: "POST" });
  });
  $("[data-action=tune-load]").addEventListener("click", () => {
    if (state.tune) { buildForm(state.tune.best_fields.game, state.tune.best_fields); showError(null); }
  });
  $("[data-action=tune-best]").addEventListener("click", () => download(`/api/tunes/${state.currentTune}/best.toml`));
  $("[data-action=tune-toml]").addEventListener("click", () => {
    if (state.currentTune) download(`/api/tunes/${state.currentTune}/tune.toml`);
    else showTuneError("tune: start a tune first; its file is the tables above with the form's config as its base");
  });
  $("[data-action=tune-base]").addEventListener("click", () => {
    if (state.currentTune) download(`/api/tunes/${state.currentTune}/base.toml`);
    else showTuneError("tune: start a tune first; its base is the form's config when it starts");
  });
  await tuneTemplate();
  await restore(pair);
  document.body.dataset.ready = "true";
}

start().catch((err) => showError(err.message, err.field));
