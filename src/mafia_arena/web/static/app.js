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
};

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function show(id) {
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== id;
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
    const detail = typeof data.detail === "string" ? data.detail : "request refused";
    throw new Error(detail);
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
  show("home");
  listFinished().catch(() => {});
  const [variants, agents] = await Promise.all([api("GET", "/api/variants"), api("GET", "/api/agents")]);
  const select = $("variant");
  select.replaceChildren();
  for (const v of variants) {
    const option = el("option", `${v.title} (${v.min_players}-${v.max_players})`);
    option.value = v.name;
    option.dataset.min = v.min_players; option.dataset.max = v.max_players;
    option.dataset.text = v.description;
    if (v.name === "standard") option.selected = true;
    select.append(option);
  }
  const seatRows = () => {
    const n = Math.max(3, Math.min(40, Number($("players").value) || 7));
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
    $("variant-text").textContent = option.dataset.text;
  };
  select.onchange = variantChanged;
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
      bot_delay: Number($("bot-delay").value),
    };
    try {
      const created = await api("POST", "/api/games", spec);
      app.gameId = created.game_id;
      store.set("admin", created.admin);
      history.pushState(null, "", `/g/${created.game_id}`);
      route();
    } catch (err) { $("create-error").textContent = err.message; }
  };
}

// ---------------------------------------------------------------- join & lobby
function inviteLink(invite) { return `${location.origin}/g/${app.gameId}#invite=${invite}`; }

function resumeLink(token) { return `${location.origin}/g/${app.gameId}#resume=${token}`; }

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

async function showJoin(invite) {
  show("join");
  try {
    const lobby = await api("GET", `/api/games/${app.gameId}`);
    $("join-title").textContent = lobby.title;
  } catch (err) { message("This game does not exist (or has ended long ago)."); return; }
  $("join-form").onsubmit = async (event) => {
    event.preventDefault();
    $("join-button").disabled = true;
    try { await join(invite, $("join-name").value.trim()); }
    catch (err) { $("join-error").textContent = err.message; $("join-button").disabled = false; }
  };
}

function renderLobby(lobby, admin) {
  show("lobby");
  $("lobby-title").textContent = `${lobby.title}, ${lobby.players} players`;
  const list = $("lobby-seats");
  list.replaceChildren();
  for (const s of lobby.seats) {
    const status = s.kind === "bot" ? `bot (${s.agent})` : s.taken ? `${s.name} — ready` : "waiting for a player";
    list.append(el("li", `${s.label}: ${status}`));
  }
  $("admin").hidden = !admin;
  if (lobby.started) $("lobby-note").textContent = "The game has started.";
}

async function adminLobby(admin) {
  const poll = async () => {
    if (app.credential) return;  // the creator took a seat: the socket takes over
    try {
      const lobby = await api("GET", `/api/games/${app.gameId}`);
      if (lobby.started) { message("The game has started without you taking a seat. Open an invite link to play."); return; }
      renderLobby(lobby, true);
      const { invites } = await api("GET", `/api/games/${app.gameId}/invites`, undefined, admin);
      const list = $("invites");
      list.replaceChildren();
      for (const inv of invites) {
        const row = el("li");
        const take = el("button", `Take P${inv.seat + 1} myself`);
        take.type = "button";
        take.onclick = () => join(inv.invite, "").catch((e) => { $("lobby-note").textContent = e.message; });
        const copy = el("button", "Copy link");
        copy.type = "button";
        copy.onclick = () => navigator.clipboard?.writeText(inviteLink(inv.invite));
        row.append(el("span", `P${inv.seat + 1} `), copy, " ", take, el("code", inviteLink(inv.invite)));
        list.append(row);
      }
      setTimeout(poll, 2000);
    } catch (err) { $("lobby-note").textContent = err.message; }
  };
  $("start-now").onclick = () => api("POST", `/api/games/${app.gameId}/start`, {}, admin)
    .catch((e) => { $("lobby-note").textContent = e.message; });
  poll();
}

// ---------------------------------------------------------------- finished games
async function listFinished() {
  const games = await api("GET", "/api/finished");
  const list = $("finished-list");
  if (!games.length) return;
  list.replaceChildren();
  for (const g of games) {
    const row = el("li");
    const link = el("a", `${g.variant}, ${g.players} players — ${g.winner ? g.winner + " won" : "a draw"}`);
    link.href = `/replay/${g.id}`;
    row.append(link);
    list.append(row);
  }
}

async function showReplayOnly() {
  show("past");
  let replay;
  try { replay = await api("GET", `/api/games/${app.gameId}/replay`); }
  catch (err) { message(err.message); return; }
  $("past-title").textContent = `Replay: ${replay.variant}, ${replay.players} players — ${replay.winner || "a draw"}`;
  const select = $("past-seat");
  select.replaceChildren();
  for (const seat of replay.seats) {
    const option = el("option", `${seat.label} ${seat.agent} (${seat.role})`);
    option.value = String(seat.seat);
    select.append(option);
  }
  select.onchange = () => appendLines($("past-lines"), replay.seats[Number(select.value)].lines, true);
  select.onchange();
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
  if (seat) { connect(); return; }
  const admin = store.get("admin");
  if (admin) { adminLobby(admin); return; }
  message("To play in this game you need an invite link from its creator.");
}

$("sound").checked = localStorage.getItem("mafia:sound") === "1";
$("sound").onchange = () => localStorage.setItem("mafia:sound", $("sound").checked ? "1" : "0");
setInterval(tick, 250);
window.addEventListener("popstate", route);
route();
