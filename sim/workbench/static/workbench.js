// The workbench page: a form made from the game's knobs, plays, their list, comparisons on the same deals.
// Every field is named by the config key it sets; the page's query string holds the fields that differ
// from the rulebook, so a copied address sets the same game again.
"use strict";

const state = { games: {}, game: null, plays: [], current: null, polling: null };
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
  const query = new URLSearchParams(fields()).toString();
  history.replaceState(null, "", `${location.pathname}?${query}`);
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
  form.elements["run.games"].value = values["run.games"] || "20000";
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
  const baseline = (form.ownerDocument.querySelector("input[name=baseline]:checked") || {}).value;
  const other = (form.ownerDocument.querySelector("input[name=other]:checked") || {}).value;
  rows.replaceChildren();
  for (const p of state.plays) {
    const changed = Object.entries(p.differences).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("; ") || "rulebook";
    const radio = (name, checked) => el("input", { type: "radio", name, value: p.id, "aria-label": `${name} ${p.id}`,
                                                   checked: checked ? "" : null, disabled: p.state === "done" ? null : "" });
    const load = el("button", { type: "button", "data-action": "load", text: "Load" });
    load.addEventListener("click", () => { buildForm(p.fields.game, p.fields); showError(null); });
    rows.append(el("tr", { "data-play": p.id, class: p.id === state.current ? "current" : null },
      el("td", {}, radio("baseline", p.id === baseline)), el("td", {}, radio("other", p.id === other)),
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
const STATUS = { queued: "waiting for the play before it", estimating: "estimating its time",
                 playing: "playing", measuring: "measuring the skill gap and the strength profile" };

async function follow(id) {
  const play = await api(`/api/plays/${id}`);
  remember(play);
  if (id !== state.current) return;
  const bar = $("#progress progress");
  bar.max = play.games;
  bar.value = play.games_played;
  $("#progress [data-status]").textContent =
    `${STATUS[play.state] || play.state}: ${play.games_played.toLocaleString("en")} of ${play.games.toLocaleString("en")} games`;
  if (play.summary) showMetrics(play);
  if (play.state === "refused" || play.state === "failed") showError(play.error, (play.error || "").split(":")[0]);
  if (FINISHED.includes(play.state)) {
    clearInterval(state.polling);
    state.polling = null;
    $("#progress").hidden = true;
    if (play.state === "done") { showSensitivity(play); showReport(play); }
  }
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
  $("#progress").hidden = false;
  $("#progress [data-play-id]").textContent = started.id;
  $("#result").hidden = true;
  if (state.polling) clearInterval(state.polling);
  state.polling = setInterval(() => follow(started.id).catch((e) => showError(e.message, e.field)), 200);
}

async function cancel() {
  if (state.current) await api(`/api/plays/${state.current}/cancel`, { method: "POST" });
}

async function compare() {
  const baseline = (document.querySelector("input[name=baseline]:checked") || {}).value;
  const other = (document.querySelector("input[name=other]:checked") || {}).value;
  if (!baseline || !other) { showError("compare: pick a baseline and another play", null); return; }
  let result;
  try {
    result = await api(`/api/compare?baseline=${encodeURIComponent(baseline)}&other=${encodeURIComponent(other)}`);
  } catch (err) {
    showError(err.message, null);
    return;
  }
  showError(null);
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

async function followTune(id) {
  const t = await api(`/api/tunes/${id}`);
  const bar = $("#tune-progress progress");
  const expected = Math.max(t.games_expected || 1, t.games_played);
  bar.max = expected;
  bar.value = t.games_played;
  $("[data-tune-status]").textContent = `${TUNE_STATUS[t.state] || t.state}: ` +
    `${t.games_played.toLocaleString("en")} games of about ${expected.toLocaleString("en")}`;
  if (!["done", "refused", "cancelled", "failed"].includes(t.state)) return;
  clearInterval(state.tunePolling);
  state.tunePolling = null;
  $("#tune-progress").hidden = true;
  $("#tune").dataset.state = t.state;
  if (t.state !== "done") { showTuneError(t.error || t.state); return; }
  state.tune = t;
  $("[data-tune-headline]").textContent = t.answer.verdict.headline;
  $("[data-tune-sentence]").textContent = t.answer.recommendation.sentence;
  $("[data-tune-changes]").replaceChildren(...t.answer.recommendation.changes.map((c) =>
    el("li", { text: `${c.what}: ${JSON.stringify(c.from)} \u2192 ${JSON.stringify(c.to)}` })));
  $("#tune-result").hidden = false;
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
  $("#tune").dataset.tune = started.id;
  $("#tune").dataset.state = started.state;
  $("#tune-result").hidden = true;
  $("#tune-progress").hidden = false;
  if (state.tunePolling) clearInterval(state.tunePolling);
  state.tunePolling = setInterval(() => followTune(started.id).catch((e) => showTuneError(e.message)), 300);
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
  await tuneTemplate();
  document.body.dataset.ready = "true";
}

start().catch((err) => showError(err.message, err.field));
