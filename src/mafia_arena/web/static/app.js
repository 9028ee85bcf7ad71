// Mafia Arena page: create a game, join with an invite, play one seat live.
// Security: every server or player string is rendered with textContent (never parsed
// as markup); the seat credential lives in localStorage (it survives a closed tab) and
// travels only in the Authorization header and the first websocket message, never in a
// URL. The resume link (to move the seat to another device) is shown to its player only.
"use strict";

const $ = (id) => document.getElementById(id);
const TITLE = "Mafia Arena";
const app = {
  gameId: null, credential: null, seat: null, ws: null, retry: 0, over: false,
  turn: null, notified: null, deadline: null, replay: null, pinger: null,
  roleTitles: {},
  answered: null, sentWords: "", lostDraft: "",  // drafts (game.js): the turn answered, its words; a closed turn's unsent words
};

// A refused request's reasons: the server's validation errors say what is wrong with
// which field ("a name is 1 to 24 letters, ...").
function refusal(detail) {
  if (!Array.isArray(detail) || !detail.length) return "request refused";
  return detail.map((d) => String(d.msg || "").replace(/^Value error, /, "")).join("; ");
}

// A role as the page names it: the variant's display name where it gives one
// (Palermo's "known_a" is "Known Mafioso A"), else its id.
function roleName(role, titles = app.roleTitles) {
  return (titles && titles[role]) || role;
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function show(id) {
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== id;
  $("skip").hidden = id !== "game";  // "Skip to your move" only where there is a move
}

function message(text) {
  $("message-text").textContent = text;
  show("message");
}

async function api(method, path, body, token) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin", cache: "no-store", referrerPolicy: "no-referrer",
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : refusal(data.detail);
    throw Object.assign(new Error(detail), { status: res.status });  // 404: no such thing
  }
  return data;
}

const store = {
  key: (kind) => `mafia:${kind}:${app.gameId}`,
  get(kind) {
    try { return JSON.parse(localStorage.getItem(this.key(kind)) || "null"); }
    catch { return null; }
  },
  set(kind, value) { localStorage.setItem(this.key(kind), JSON.stringify(value)); },
  drop(kind) { localStorage.removeItem(this.key(kind)); },
};

// ---------------------------------------------------------------- home: create
async function showHome() {
  // until the variants arrive "Create game" is disabled, so neither a click nor Enter
  // submits the form (to the server: a reload); the real handler comes below, and a
  // failed load says so instead of leaving a dead button
  const button = $("create-button");
  button.disabled = true;
  $("create-error").textContent = "";
  show("home");
  listFinished();
  let variants, agents;
  try {
    [variants, agents] = await Promise.all([api("GET", "/api/variants"), api("GET", "/api/agents")]);
  } catch (err) {
    $("create-error").textContent = `Could not load the variants and players (${err.message}); reload the page to try again.`;
    return;
  }
  const select = $("variant");
  select.replaceChildren();
  for (const v of variants) {
    // the rules' range as `mafia-arena variants` writes it ("7+": no upper bound); the
    // player count this form takes stops at the rules' bound or this server's table cap
    const range = v.max_players === null ? `${v.min_players}+` : `${v.min_players}-${v.max_players}`;
    const option = el("option", `${v.title} (${range})`);
    option.value = v.name;
    option.dataset.min = v.min_players;
    option.dataset.max = Math.min(v.max_players ?? v.table_cap, v.table_cap);
    option.dataset.text = v.description;
    option.dataset.params = JSON.stringify(v.params || {});
    if (v.name === "standard") option.selected = true;
    select.append(option);
  }
  // the variant's numeric and yes/no switches; night talk rounds start at 1 here, so a
  // table of people has its faction's night chat unless the creator turns it off
  const paramRows = (params) => {
    const box = $("params");
    box.replaceChildren();
    for (const [key, value] of Object.entries(params)) {
      const input = el("input");
      input.dataset.key = key; input.dataset.default = JSON.stringify(value);
      if (typeof value === "boolean") { input.type = "checkbox"; input.checked = value; }
      else {
        input.type = "number"; input.min = "0"; input.max = "20";
        input.value = String(/_chat_rounds$/.test(key) ? Math.max(1, value) : value);
      }
      const label = el("label", `${key.replace(/_/g, " ")}${/_chat_rounds$/.test(key) ? " (night talk in the team's channel)" : ""} `);
      label.append(input);
      box.append(label);
    }
    $("params-box").hidden = !Object.keys(params).length;
  };
  const overrides = () => {
    const out = {};
    for (const input of $("params").querySelectorAll("input")) {
      const value = input.type === "checkbox" ? input.checked : Number(input.value);
      if (JSON.stringify(value) !== input.dataset.default) out[input.dataset.key] = value;
    }
    return out;
  };
  // the player count within the chosen variant's range (the input's own min and max)
  const playerCount = () => {
    const input = $("players");
    return Math.max(Number(input.min), Math.min(Number(input.max), Number(input.value) || 7));
  };
  const seatRows = () => {
    const n = playerCount();
    const list = $("seat-specs");
    const old = [...list.querySelectorAll("select")].map((s) => s.value);
    list.replaceChildren();
    for (let i = 0; i < n; i++) {
      const row = el("li");
      const choice = el("select");
      choice.setAttribute("aria-label", `seat P${i + 1}`);
      const human = el("option", "human (invite link)"); human.value = "human:";
      choice.append(human);
      for (const a of agents) { const o = el("option", `bot: ${a}`); o.value = "bot:" + a; choice.append(o); }
      const preferred = agents.includes("heuristic") ? "bot:heuristic" : "bot:random";
      choice.value = old[i] || (i === 0 ? "human:" : preferred);
      row.append(el("span", `P${i + 1} `), choice);
      list.append(row);
    }
  };
  const variantChanged = () => {
    const option = select.selectedOptions[0];
    $("players").min = option.dataset.min; $("players").max = option.dataset.max;
    $("players").value = String(playerCount());  // a count the new variant seats
    $("variant-text").textContent = option.dataset.text;
    paramRows(JSON.parse(option.dataset.params || "{}"));
  };
  select.onchange = () => { variantChanged(); seatRows(); };
  $("players").oninput = seatRows;
  variantChanged(); seatRows();
  $("create").onsubmit = async (event) => {
    event.preventDefault();
    $("create-error").textContent = "";
    const seats = [...$("seat-specs").querySelectorAll("select")].map((s) => {
      const [kind, agent] = s.value.split(/:(.*)/s);
      return kind === "human" ? { kind: "human" } : { kind: "bot", agent };
    });
    const spec = {
      variant: select.value, players: seats.length, seats, absent: $("absent").value,
      bot_delay: Number($("bot-delay").value), timer_scale: Number($("timer-scale").value),
      overrides: overrides(),
    };
    try {
      const created = await api("POST", "/api/games", spec);
      app.gameId = created.game_id;
      store.set("admin", created.admin);
      history.pushState(null, "", `/g/${created.game_id}`);
      route();
    } catch (err) { $("create-error").textContent = err.message; }
  };
  button.disabled = false;
}

// ---------------------------------------------------------------- join & lobby
function inviteLink(invite) { return `${location.origin}/g/${app.gameId}#invite=${invite}`; }

function resumeLink(token) { return `${location.origin}/g/${app.gameId}#resume=${token}`; }

function watchLink(token) { return `${location.origin}/g/${app.gameId}#watch=${token}`; }

function keep(joined, invite) {
  store.set("seat", { credential: joined.credential, seat: joined.seat, resume: joined.resume, invite: invite || null });
  history.replaceState(null, "", `/g/${app.gameId}`);  // the token leaves the address bar
  connect();
}

async function join(invite, name) {
  keep(await api("POST", `/api/games/${app.gameId}/join`, { invite, name: name || null }), invite);
}

async function resume(token) {
  try { keep(await api("POST", `/api/games/${app.gameId}/resume`, { resume: token })); }
  catch (err) { message(err.message); }
}

// A finished game answers its lobby with the address of its replay (also after a
// restart, when the server holds it only in its store): any link to it opens the replay.
function openReplay() {
  history.replaceState(null, "", `/replay/${app.gameId}`);
  route();
}

// Whether the game is over with a replay to show, which it then opens; false when it is
// not, or the question failed (the page's own message stays then).
async function replayIfFinished() {
  try {
    const lobby = await api("GET", `/api/games/${app.gameId}`);
    if (lobby.over && lobby.replay) { openReplay(); return true; }
  } catch { /* no such game, or the server away */ }
  return false;
}

async function showJoin(invite) {
  // The form answers before the view shows: a click while the table's details load
  // must take the seat, not submit the form to the server (a reload that loses the invite).
  $("join-form").onsubmit = async (event) => {
    event.preventDefault();
    $("join-button").disabled = true;
    try { await join(invite, $("join-name").value.trim()); }
    catch (err) { $("join-error").textContent = err.message; $("join-button").disabled = false; }
  };
  show("join");
  try {
    const lobby = await api("GET", `/api/games/${app.gameId}`);
    if (lobby.over && lobby.replay) { openReplay(); return; }
    $("join-title").textContent = lobby.title;
    $("join-table").textContent = tableText(lobby);
    const seat = await api("POST", `/api/games/${app.gameId}/seat`, { invite }).catch(() => null);
    $("join-seat").textContent = seat ? `Your seat: ${seat.label}` : "";
  } catch (err) {
    // only the server's "no such game" means that; a request that failed (the server
    // away, the network down) says so, and the form stays for a later try
    if ($("join").hidden) return;
    if (err.status === 404) message("This game does not exist (or has ended long ago).");
    else $("join-error").textContent = `Could not load this game (${err.message}); reload the page to try again.`;
  }
}

// "7 players: 2 people, 5 bots (4 heuristic, 1 random) · timers ×1 · mafia chat rounds 1"
function tableText(lobby) {
  const t = lobby.table;
  if (!t) return "";
  const kinds = Object.entries(t.bot_kinds).map(([k, n]) => `${n} ${k}`).join(", ");
  const people = `${t.humans} ${t.humans === 1 ? "person" : "people"}`;
  const bots = t.bots ? `, ${t.bots} bot${t.bots === 1 ? "" : "s"} (${kinds})` : ", no bots";
  const settings = lobby.settings || {};
  const switches = Object.entries(settings.overrides || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`);
  const timers = settings.timer_scale && settings.timer_scale !== 1 ? [`timers ×${settings.timer_scale}`] : [];
  return [`${lobby.players} players: ${people}${bots}`, ...timers, ...switches].join(" · ");
}

function renderLobby(lobby, admin) {
  show("lobby");
  $("lobby-title").textContent = `${lobby.title}, ${lobby.players} players`;
  $("lobby-table").textContent = tableText(lobby);
  $("lobby-rules-text").textContent = lobby.rules || "";
  $("lobby-you").textContent = lobby.seat !== undefined && lobby.seat !== null
    ? `You are ${lobby.seats[lobby.seat].label} (${lobby.seats[lobby.seat].name}).` : "";
  const list = $("lobby-seats");
  list.replaceChildren();
  for (const s of lobby.seats) {
    const status = s.kind === "bot" ? `bot (${s.agent})` : s.taken ? `${s.name} — ready` : "waiting for a player";
    list.append(el("li", `${s.label}: ${status}`, s.seat === lobby.seat ? "me" : ""));
  }
  $("admin").hidden = !admin;
  if (lobby.started) $("lobby-note").textContent = "The game has started.";
}

// The lobby's invite rows are rebuilt at every poll: a button of theirs that had the
// focus (a keyboard player about to take a seat) is found again by its accessible name
// and gets the focus back, rather than the focus falling to the top of the page. The
// name box above the rows is never rebuilt, so what is typed there stays as it is.
function heldInviteButton(list) {
  const active = document.activeElement;
  if (!active || !list.contains(active) || active.tagName !== "BUTTON") return null;
  return active.getAttribute("aria-label") || active.textContent;
}

function refocusInviteButton(list, held) {
  if (!held) return;
  const again = [...list.querySelectorAll("button")]
    .find((b) => (b.getAttribute("aria-label") || b.textContent) === held);
  if (again) again.focus();
}

async function adminLobby(admin) {
  const poll = async () => {
    if (app.credential) return;  // the creator took a seat: the socket takes over
    try {
      const lobby = await api("GET", `/api/games/${app.gameId}`);
      if (lobby.over && lobby.replay) { openReplay(); return; }
      if (lobby.started) { message("The game has started without you taking a seat. Open an invite link to play."); return; }
      renderLobby(lobby, true);
      const { invites, watch } = await api("GET", `/api/games/${app.gameId}/invites`, undefined, admin);
      $("watch-link").textContent = watchLink(watch);
      $("copy-watch").onclick = () => navigator.clipboard?.writeText(watchLink(watch));
      const list = $("invites");
      const held = heldInviteButton(list);
      list.replaceChildren();
      for (const inv of invites) {
        const row = el("li");
        const take = el("button", `Take P${inv.seat + 1} myself`);
        take.type = "button";
        take.onclick = () => join(inv.invite, $("creator-name").value.trim())
          .catch((e) => { $("lobby-note").textContent = e.message; });
        const copy = el("button", "Copy link");
        copy.type = "button";
        copy.setAttribute("aria-label", `Copy link for P${inv.seat + 1}`);  // one per seat, told apart
        copy.onclick = () => navigator.clipboard?.writeText(inviteLink(inv.invite));
        row.append(el("span", `P${inv.seat + 1} `), copy, " ", take, el("code", inviteLink(inv.invite)));
        list.append(row);
      }
      refocusInviteButton(list, held);
      setTimeout(poll, 2000);
    } catch (err) { $("lobby-note").textContent = err.message; }
  };
  $("start-now").onclick = () => api("POST", `/api/games/${app.gameId}/start`, {}, admin)
    .catch((e) => { $("lobby-note").textContent = e.message; });
  poll();
}

// ---------------------------------------------------------------- finished games
// The list says which of three it is: loading, none yet, or that it could not load
// (an empty list and a failed request must not look alike). The server lists a page of
// FINISHED_PAGE at a time, newest first; "Older games" asks for the page after the
// last game shown (?before=<its id>), so every finished game can be reached from here.
const FINISHED_PAGE = 50;

async function listFinished() {
  const list = $("finished-list");
  $("finished-more").hidden = true;
  $("finished-error").textContent = "";
  list.replaceChildren(el("li", "Loading…", "hint"));
  let games;
  try { games = await api("GET", "/api/finished"); }
  catch (err) {
    list.replaceChildren(el("li", `Could not load the finished games (${err.message}); reload the page to try again.`, "error"));
    return;
  }
  list.replaceChildren();
  if (!games.length) { list.append(el("li", "None yet.", "hint")); return; }
  appendFinished(games);
}

// One page of finished games at the end of the list, and the button for the next.
function appendFinished(games) {
  const list = $("finished-list");
  for (const g of games) {
    const row = el("li");
    const link = el("a", `${g.variant}, ${g.players} players — ${g.winner ? g.winner + " won" : "a draw"}`);
    link.href = `/replay/${g.id}`;
    row.append(link);
    // games of one setup read alike: when each ended tells them apart
    if (g.finished) row.append(document.createTextNode(` · ${finishedAt(g.finished)}`));
    list.append(row);
  }
  const more = $("finished-more");
  more.hidden = games.length < FINISHED_PAGE;
  more.disabled = false;
  const last = games[games.length - 1];
  more.onclick = async () => {
    more.disabled = true;
    $("finished-error").textContent = "";
    let older;
    try { older = await api("GET", `/api/finished?before=${encodeURIComponent(last.id)}`); }
    catch (err) {
      $("finished-error").textContent = `Could not load older games (${err.message}); try again.`;
      more.disabled = false;
      return;
    }
    if (older.length) { appendFinished(older); return; }
    more.hidden = true;
    list.append(el("li", "No older games.", "hint"));
  };
}

function finishedAt(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "medium" });
}

// A replay seat's player as the table named them: a person by their name, a bot as
// "<agent> bot" (the stored seating says "human:Ada", "heuristic").
function seatPlayer(agent) {
  if (!agent) return "";
  if (agent.startsWith("human:")) return agent.slice(6).trim() || "a person";
  return `${agent} bot`;
}

async function showReplayOnly() {
  show("past");
  let replay;
  try { replay = await api("GET", `/api/games/${app.gameId}/replay`); }
  catch (err) { message(err.message); return; }
  $("past-title").textContent = `Replay: ${replay.variant}, ${replay.players} players — ${replay.winner ? replay.winner + " won" : "a draw"}`;
  $("past-reason").textContent = replay.reason || "";
  const select = $("past-seat");
  fillReplay(select, $("past-lines"), replay, (seat) => `${seat.label} ${seatPlayer(seat.agent)} (${roleName(seat.role, replay.role_titles)})`);
  offerPastRematch();
}

// A player of the game (their seat kept on this device) may ask for the rematch from
// its replay too: after a restart every link to a finished game opens its replay.
async function offerPastRematch() {
  const seat = store.get("seat");
  $("past-rematch-box").hidden = true;
  if (!seat || !seat.credential) return;
  let lobby;
  try { lobby = await api("GET", `/api/games/${app.gameId}`); }
  catch { return; }
  offerRematch($("past-rematch"), $("past-rematch-note"), lobby.rematch, seat.credential);
  $("past-rematch-box").hidden = false;
}

// A replay's point of view: any seat's, the moderator's (every line but the host's
// own draws and decisions), or the host's view of the LLM decisions (their traces);
// the replay opens only after the game, so the last two never show in a live game.
function fillReplay(select, list, replay, label) {
  select.replaceChildren();
  for (const seat of replay.seats) {
    const option = el("option", label(seat));
    option.value = String(seat.seat);
    select.append(option);
  }
  if (replay.moderator) { const o = el("option", "Moderator: every line"); o.value = "moderator"; select.append(o); }
  if (replay.traces && replay.traces.length) {
    const o = el("option", `Host: LLM decision traces (${replay.traces.length})`);
    o.value = "traces";
    select.append(o);
  }
  select.onchange = () => {
    if (select.value === "traces") { showTraces(list, replay.traces); return; }
    appendLines(list, select.value === "moderator"
      ? replay.moderator : replay.seats[Number(select.value)].lines, true);
  };
  select.onchange();
}

// One item per LLM decision: who decided what, then the question, raw answers,
// reasoning and reason (text only, never markup), the parts of replies that were not
// used (`dropped`: each under "not used", as the terminal replay writes them), and
// what the decision cost.
function showTraces(list, traces) {
  list.replaceChildren();
  for (const t of traces) {
    const li = el("li", null, "trace");
    li.dataset.testid = "trace";
    const who = t.agent ? `${t.label} (${t.agent})` : t.label;
    li.append(el("strong", `[D${t.day}] ${who} ${t.kind}: ${t.decided}`));
    const details = el("dl");
    const row = (name, value, style = "") => {
      if (value === null || value === undefined || value === "") return;
      details.append(el("dt", name, style), el("dd", value, style));
    };
    row("question", t.question);
    (t.answers || []).forEach((answer, i) => row(`answer ${i + 1}`, answer));
    row("reasoning", t.reasoning);
    row("reason", t.reason);
    (t.dropped || []).forEach((part) => row("not used", part, "dropped"));
    row("speech", t.speech);
    row("cost", `tokens ${t.tokens_in} in / ${t.tokens_out} out, latency ${Number(t.latency_s).toFixed(3)} s, `
      + `requests ${t.requests}, re-asks ${t.reasks}, retries ${t.retries}`);
    li.append(details);
    list.append(li);
  }
}

// ---------------------------------------------------------------- routing
function route() {
  const match = location.pathname.match(/^\/g\/([A-Za-z0-9_-]{4,64})$/);
  const replayMatch = location.pathname.match(/^\/replay\/([A-Za-z0-9_-]{4,64})$/);
  if (replayMatch) { app.gameId = replayMatch[1]; showReplayOnly(); return; }
  if (!match) { showHome().catch((e) => message(e.message)); return; }
  app.gameId = match[1];
  const fragment = new URLSearchParams(location.hash.slice(1));
  const invite = fragment.get("invite");
  const seat = store.get("seat");
  // the same invite on the same device: this device already holds the seat
  if (invite && seat && seat.invite === invite) { history.replaceState(null, "", `/g/${app.gameId}`); connect(); return; }
  if (invite) { showJoin(invite); return; }
  if (fragment.get("resume")) { resume(fragment.get("resume")); return; }
  if (fragment.get("watch") && !seat) {  // a spectator: public events only
    store.set("watch", fragment.get("watch"));
    history.replaceState(null, "", `/g/${app.gameId}`);
    connect(); return;
  }
  if (seat || store.get("watch")) { connect(); return; }
  const admin = store.get("admin");
  if (admin) { adminLobby(admin); return; }
  message("To play in this game you need an invite link from its creator.");
  replayIfFinished();
}

$("sound").checked = localStorage.getItem("mafia:sound") === "1";
$("sound").onchange = () => localStorage.setItem("mafia:sound", $("sound").checked ? "1" : "0");
// turn alerts through the Notification API (only while the tab is in the background)
$("alerts").checked = localStorage.getItem("mafia:alerts") === "1" && window.Notification?.permission === "granted";
// A refusal (the browser's or the player's) unticks the box and says why under the
// header, with how to allow them: a box that unticked itself silently looked broken.
$("alerts").onchange = async () => {
  let refused = "";
  if ($("alerts").checked && !window.Notification) {
    refused = "This browser has no notifications, so turn alerts cannot be shown.";
  } else if ($("alerts").checked && Notification.permission !== "granted") {
    if ((await Notification.requestPermission()) !== "granted") {
      refused = "The browser refused notifications for this page. To get turn alerts, allow "
        + "notifications in the site's settings (the icon beside the address), then tick “alerts” again.";
    }
  }
  if (refused) $("alerts").checked = false;
  $("alerts-note-text").textContent = refused;
  $("alerts-note").hidden = !refused;
  localStorage.setItem("mafia:alerts", $("alerts").checked ? "1" : "0");
};
$("alerts-note-close").onclick = () => { $("alerts-note").hidden = true; };
// phones: the players list is one tap away, over whatever the page shows (a vote too)
$("players-toggle").onclick = () => {
  $("players-panel").style.top = `${Math.ceil($("top").getBoundingClientRect().bottom) + 4}px`;
  const open = document.body.classList.toggle("players-open");
  $("players-toggle").setAttribute("aria-expanded", String(open));
};
$("skip").onclick = skipToMove;
// the phones' players list, opened over the page, closes with Escape too
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !document.body.classList.contains("players-open")) return;
  document.body.classList.remove("players-open");
  $("players-toggle").setAttribute("aria-expanded", "false");
  $("players-toggle").focus();
});
setInterval(tick, 250);
window.addEventListener("popstate", route);
route();
