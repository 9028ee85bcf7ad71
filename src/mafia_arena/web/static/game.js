// Mafia Arena page, live game: the seat's websocket and the rendering of its view.
// Loaded before app.js (shared helpers: $, el, api, store, app live there but are only
// called at run time). Every string is rendered with textContent, never parsed as markup.
"use strict";
function connect() {
  // a seat credential, or else the game's watch token (a spectator's page)
  const saved = store.get("seat") || (store.get("watch") && { credential: store.get("watch"), seat: null });
  if (!saved) return;
  app.credential = saved.credential; app.seat = saved.seat;
  if (saved.resume) { $("resume-link").textContent = resumeLink(saved.resume); $("move").hidden = false; }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${app.gameId}`);
  app.ws = ws;
  ws.onopen = () => {
    app.retry = 0; $("conn").classList.remove("off");
    ws.send(JSON.stringify({ type: "auth", credential: app.credential }));
    clearInterval(app.pinger);
    app.pinger = setInterval(() => send({ type: "ping" }), 25000);
  };
  ws.onmessage = (event) => {
    let msg; try { msg = JSON.parse(event.data); } catch { return; }
    if (msg.type === "state") renderState(msg);
    else if (msg.type === "lobby") renderLobby(msg, false);
    else if (msg.type === "chat") renderChat(msg);
    else if (msg.type === "error" && msg.about === "chat") refusedChat(msg.reason);
    else if (msg.type === "error" && msg.about === "seat") openedElsewhere();
    else if (msg.type === "error") showError(msg.reason);
    else if (msg.type === "warning" || msg.type === "info") $("warning").textContent = msg.text;
  };
  ws.onclose = (event) => {
    clearInterval(app.pinger);
    if (event.code === 4401 || event.code === 4404) {
      app.deadline = null; app.over = true;  // stop the countdown under the message
      store.drop("watch");
      message("This seat's session is not valid any more (the game may have ended and been archived).");
      // over and kept: its replay, where the seat kept here may still ask for the rematch
      if (event.code === 4404) replayIfFinished().then((kept) => kept || store.drop("seat"));
      else store.drop("seat");
      return;
    }
    if (event.code === 4409) { openedElsewhere(); return; }
    if (app.over) return;
    $("conn").classList.add("off");
    app.retry = Math.min(app.retry + 1, 6);
    setTimeout(connect, 500 * 2 ** app.retry);
  };
}

// The seat was opened in another tab or on another device (the server's error "about"
// the seat, then close code 4409): that page plays it now. This one says so at the
// first of the two, stops its countdown and buttons, and never reconnects by itself: a
// reconnect would take the seat back, the other page would be closed the same way, and
// two pages that both reconnected would take the seat from each other forever.
// Reloading this page takes the seat back here. The error is not shown as a refusal
// under the move (which flashed, buttons enabled again, before the close arrived).
function openedElsewhere() {
  app.deadline = null; app.over = true;
  message("This seat was opened in another tab or device, so this page was closed. Reload it to play here.");
}

function send(obj) {
  if (obj.type !== "ping") $("warning").textContent = "";  // the player is here: warnings are read
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return false;
  app.ws.send(JSON.stringify(obj));
  if (["say", "act", "form"].includes(obj.type)) noteAnswer(obj);
  return true;
}

function showError(reason) {
  $("action-error").textContent = reason;
  app.answered = null; app.sentWords = "";  // refused: the words in the box were not taken
  for (const b of document.querySelectorAll("#action button")) b.disabled = false;
}

function lineItem(line) {
  const li = el("li", null, line.kind === "phase" ? "phase" : "");
  if (line.private) {
    li.classList.add("private");
    // whose line it is, in the server's words (views/people_text.py tag_words), as the
    // terminal game writes them before the line; none where the line says it itself
    const tag = line.tag ?? "private";
    if (tag) li.append(el("span", `[${tag}]`, "tag"));
  }
  if (line.kind === "speech" && typeof line.speech === "string") {
    // a player's words sit in their own quotation element, so no speech can pass for
    // a host line, whatever quotes or line breaks it contains
    li.classList.add("speech");
    li.append(el("span", line.speaker, "speaker"), document.createTextNode(": "));
    li.append(el("q", line.speech.replace(/\s+/g, " "), "said"));
    return li;
  }
  li.append(document.createTextNode(line.text));
  return li;
}

function appendLines(list, lines, reset) {
  if (reset) list.replaceChildren();
  const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
  for (const line of lines) list.append(lineItem(line));
  if (nearBottom || reset) list.scrollTop = list.scrollHeight;
}

function renderState(s) {
  show("game");
  app.roleTitles = s.role_titles || {};
  document.body.classList.toggle("spectator", !!s.spectator);
  announceNews(s);
  appendLines($("transcript"), s.lines, s.reset);
  appendLines($("private"), s.lines.filter((l) => l.private), s.reset);
  // a Palermo turn names its timed phase in the prompt's words ("early night 1", sent
  // as the request's `when`); otherwise the phase of the turn or of the seat's last event
  const timed = (s.request && s.request.phase) || null;
  const when = (s.request && s.request.when) || null;
  $("phase").textContent = s.over ? "game over" : when || phaseHeader(timed || s.phase, s.day);
  $("watching").hidden = !s.spectator; $("card").hidden = !!s.spectator;
  $("private-panel").hidden = !!s.spectator;
  // the rules with the creator's switches applied; set only when they differ, so an
  // open or closed section stays as the player left it
  if ($("rules-text").textContent !== (s.rules || "")) $("rules-text").textContent = s.rules || "";
  if (s.spectator) $("action").hidden = true; else renderCard(s.you);
  renderPlayers(s.players);
  renderChats(s.chats || []);
  app.rematch = s.rematch || null;
  renderVotes(s.votes);
  renderForum(s.forum);
  renderModerator(s);
  app.waiting = s.waiting || null;
  renderRequest(s.request);
  renderGhostNote(s.request, s.you);
  renderNotices(s.notices || [], s.stand_in);
  if (s.over) renderEnd(s);
}

// Palermo: why a seat out of play is asked at all, in one fixed line per kind of turn,
// from the seat's own request and state only, so that it reads the same whatever card
// the seat holds. A ghost's turn often has nothing to play but "done for this phase";
// the last words (request kind "last_words") are asked of every player the vote just
// removed, a ghost now or out for absences, and take no card.
const GHOST_NOTES = {
  turn: "Ghosts are asked alike, with an intrigue card or without, so being asked tells nobody who holds one. Nothing to play? Choose “done for this phase”.",
  last_words: "Every player the vote removes is asked for last words, with an intrigue card or without, and no card is played now: one message to the whole table. Nothing to say? Choose “say nothing” under “Quick phrases”.",
};

function renderGhostNote(req, you) {
  const kind = req ? req.kind : null;
  const text = kind === "last_words" ? GHOST_NOTES.last_words
    : kind === "turn" && you && you.state === "ghost" ? GHOST_NOTES.turn : "";
  $("ghost-note").textContent = text;
  $("ghost-note").hidden = !text;
}

// ---------------------------------------------------------------- screen readers
// What the page says aloud goes through two live regions (index.html): "announce"
// (polite: new lines, deaths) and "announce-urgent" (assertive: a turn, its last
// seconds, the game's end). Everything said is taken from the push being rendered, so
// a screen reader hears nothing the seat's page does not show.
function announce(text, urgent = false) {
  const region = $(urgent ? "announce-urgent" : "announce");
  // the same words twice (two turns with one prompt) must still change the region
  region.textContent = region.textContent === text ? `${text}\u00a0` : text;
}

// How many of a push's new lines are read out; the rest are counted, not read, so a
// burst of bot lines (or a reconnect's catch-up) does not flood the listener.
const READ_LINES = 3;

// One polite announcement per push: who died since the last push (from the players
// list, which every seat sees), then the push's newest lines. A reset (the first push,
// a reconnect) is the whole transcript again: it is not read out, and sets the deaths'
// baseline.
function announceNews(s) {
  const deaths = newDeaths(s.players, s.reset);
  if (s.reset) return;
  const lines = s.lines.map(lineText);
  const skipped = lines.length - READ_LINES;
  const parts = deaths.map((p) => `${p.label} ${p.name} is dead.`);
  if (skipped > 0) parts.push(`${skipped} more lines on the table.`);
  parts.push(...lines.slice(-READ_LINES));
  if (parts.length) announce(parts.join(" "));
}

// The players who were alive at the last push and are not now (none at a reset).
function newDeaths(players, reset) {
  const before = app.alive || {};
  app.alive = Object.fromEntries(players.map((p) => [p.seat, p.alive]));
  return reset ? [] : players.filter((p) => before[p.seat] && !p.alive);
}

// A transcript line as words: a speech as "P2 Ada says: ...", a private line tagged.
function lineText(line) {
  const said = line.kind === "speech" && typeof line.speech === "string"
    ? `${line.speaker} says: ${line.speech.replace(/\s+/g, " ")}` : line.text;
  const tag = line.private ? line.tag ?? "private" : "";
  return tag ? `(${tag}) ${said}` : said;
}

// A choice that names a seat ("P3") says whom it is for in its accessible name: "vote
// for P3 Ada" (the players list's name, which the page shows anyway); other choices
// ("pass", "no lynch") keep their own words.
function choiceName(label, kind) {
  if (!/^P\d+$/.test(label)) return null;
  const player = (app.players || []).find((p) => p.label === label);
  const verb = /vote/.test(kind) && kind !== "vote_intent" ? "vote for"
    : /nominat/.test(kind) ? "nominate" : kind === "vote_intent" ? "would vote for" : "choose";
  return player ? `${verb} ${label} ${player.name}` : `${verb} ${label}`;
}

// ---------------------------------------------------------------- drafts
// What a person types or picks before sending is theirs until they send it or its turn
// closes, whatever arrives meanwhile (other seats' lines, bots' posts, the countdown, a
// reconnect's catch-up). The speech box and the chat box are never redrawn by a push;
// the forum's "Write to" row is rebuilt with the turn's buttons (`renderWritten`), so
// its players box and pseudonym are carried across the rebuild with their caret,
// selection and focus.
const WRITE_FIELDS = ["form-seats", "form-pseudonym"];

// One field as the person left it: value, focus, and the caret or selection of a text box.
function fieldDraft(id) {
  const field = $(id);
  if (!field) return null;
  const draft = { id, value: field.value, focused: document.activeElement === field, start: null, end: null, direction: "none" };
  if (field.tagName === "INPUT") {
    draft.start = field.selectionStart; draft.end = field.selectionEnd;
    draft.direction = field.selectionDirection || "none";
  }
  return draft;
}

// The field of the same id in the rebuilt panel gets its draft back (a pseudonym only
// while the seat still owns it).
function restoreField(draft) {
  const field = draft && $(draft.id);
  if (!field) return;
  if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === draft.value)) field.value = draft.value;
  if (draft.focused) field.focus();
  if (draft.start !== null && field.setSelectionRange) field.setSelectionRange(draft.start, draft.end, draft.direction);
}

// An answer sent for a turn, and the words it carried ("" for none), so that the turn's
// close can tell words taken from words never sent.
function noteAnswer(message) {
  app.answered = message.turn;
  app.sentWords = (message.text || "").trim();
}

// The turn the drafts belonged to has closed (answered, timed out, or its phase over).
// Words it took leave the box quietly. Words typed after the answer went (a forum's next
// message, begun while the last one was being taken) are the next turn's draft, and
// stay. Words of a turn that closed unanswered (run out, its window over, or its answer
// refused) are not dropped in silence: the panel says so and keeps them, to put back.
function closeDrafts(turn) {
  const words = $("speech-text").value.trim();
  const answered = app.answered === turn;
  const sent = app.sentWords;
  app.answered = null; app.sentWords = "";
  if (answered && words !== sent) return;
  $("speech-text").value = "";
  if (!words || answered) return;
  app.lostDraft = words;
  $("draft-lost-text").textContent = `Your draft was not sent: the turn closed. It was: “${words}”`;
  $("draft-lost").hidden = false;
}

// "Put it back in the box": a lost draft returns to the speech box, when the turn
// shown has one, with the caret at its end.
function restoreLostDraft() {
  const input = $("speech-text");
  if (!app.lostDraft || $("speech").hidden) return;
  input.value = (input.value ? `${input.value} ` : "") + app.lostDraft;
  app.lostDraft = "";
  $("draft-lost").hidden = true;
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
}

// ---------------------------------------------------------------- keyboard focus
// The control of the turn's answer that holds the focus, as the next render can find
// it again (each push rebuilds the buttons): its choice index or written form's verb.
function heldControl() {
  const active = document.activeElement;
  if (!active || !($("choices").contains(active) || $("phrase-choices").contains(active))) return null;
  if (active.dataset.choice !== undefined) return `button[data-choice="${active.dataset.choice}"]`;
  if (active.dataset.form !== undefined) return `button[data-form="${active.dataset.form}"]`;
  return active.id ? `#${active.id}` : null;  // a written form's players box or pseudonym
}

// Whether the focus is nowhere a person put it: on the page itself, on an element a
// render removed or hid (the lobby's "Take my seat" once the game shows), or inside the
// move panel (which a new turn rebuilds). A person typing in the chat keeps their
// place; the turn is announced to them instead.
function focusIsFree() {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected
    || !active.getClientRects().length || $("action").contains(active);
}

// A new turn: the first thing to answer with takes the focus (the speech box, else the
// first choice), when the focus is free. The same turn re-rendered: the control that
// had the focus gets it back.
function focusTurn(fresh, held) {
  const again = held && !fresh ? $("action").querySelector(held) : null;
  if (again && !again.disabled) { focusInView(again); return; }
  if (!fresh || !focusIsFree()) return;
  const first = $("speech").hidden ? $("choices").querySelector("button:enabled") : $("speech-text");
  if (first) focusInView(first);
}

// A control given the focus for the player is brought into the window, clear of the
// sticky header (its scroll margin, style.css). The browser scrolls on focus() only when
// the focus moves: a speech box that kept it (its turn closed unanswered, the next one
// opened at once) stayed wherever the player had scrolled to read the table, out of sight.
function focusInView(control) {
  control.focus({ preventScroll: true });
  control.scrollIntoView({ block: "nearest", inline: "nearest" });
}

// After an answer is sent its buttons are disabled (and later removed): the focus waits
// on the prompt, in the move panel, rather than fall back to the top of the page.
function parkFocus() {
  if ($("action").contains(document.activeElement)) $("prompt").focus();
}

// "Skip to your move": the move panel takes the focus (a link to #action would change
// the address, which the page's router reads).
function skipToMove(event) {
  event.preventDefault();
  $("action").focus();
}

function renderNotices(notices, standIn) {
  const list = $("notices");
  list.replaceChildren(...notices.map((text) => el("li", text)));
  const replaced = Boolean(standIn) && !app.over;
  // "After N more missed turns a stand-in takes your seat" is over once it has: the box says so.
  if (replaced && $("stand-in").hidden) $("warning").textContent = "";
  $("stand-in").hidden = !replaced;
  $("take-back").onclick = () => send({ type: "back" });
}

function renderCard(you) {
  $("you-label").textContent = `You are P${you.seat + 1}`;
  $("you-role").textContent = you.role ? roleName(you.role) : "?";
  $("you-faction").textContent = you.faction ? `(${you.faction})` : "";
  $("you-role-text").textContent = you.role_text;
  $("you-goal").textContent = you.goal ? `Goal: ${you.goal}` : "";
  $("you-allies").textContent = you.allies.length
    ? "You know: " + you.allies.map((a) => `${a.label} (${roleName(a.role)})`).join(", ") : "";
  $("you-dead").hidden = you.alive;
  renderPalermoCard(you);
}

// Palermo player states as the page names them (engine/player_states.py).
const STATE_LABELS = { active: "active", ghost: "ghost", imprisoned: "imprisoned", out: "permanently out" };
// Palermo's clock phases in words, for the intrigue cards' timing windows (a turn's
// header comes with its request, views/words.py palermo_when).
const PHASE_LABELS = {
  night_early: "early night", night_late: "late night", dead_time: "dead time",
  vote_close: "vote", change_window: "vote", vote_end: "vote", resolution: "vote",
  last_words: "last words",
};
// Palermo's clock phases: round n's night is Night n-1 (its announcement and line tags
// say so too, views/words.py phase_tag), then comes Day n.
const PALERMO_NIGHT = new Set(["night_early", "night_late", "dead_time"]);
const PALERMO_DAY = new Set(["morning", "noon", "afternoon", "vote_close", "change_window",
  "vote_end", "resolution", "runoff", "last_words"]);

// The header's phase and number: "day 2", the dictator's "night 0", nothing after
// setup's 0. A Palermo turn's header is the server's (the request's `when`, the
// prompt's words); otherwise a Palermo phase reads only as night or day, which change
// with public announcements (the seat's last event may be phases old).
function phaseHeader(phase, day) {
  const night = PALERMO_NIGHT.has(phase);
  const palermo = night || PALERMO_DAY.has(phase);
  const number = night ? day - 1 : day;
  const word = palermo ? (night ? "night" : "day") : phase;
  const shown = day || phase === "night" ? ` ${number}` : "";
  return `${word}${shown}`;
}

// Palermo timing windows (the variant's card phases) in words.
const WINDOW_LABELS = { ...PHASE_LABELS, vote: "the vote" };

// Palermo: the seat's own player state and the intrigue card it holds, if any. Other
// variants carry neither key, and the two lines stay hidden.
function renderPalermoCard(you) {
  const state = you.state || null;
  $("you-state").hidden = !state;
  $("you-state").textContent = state ? `Your state: ${STATE_LABELS[state] || state}` : "";
  const card = you.intrigue_card || null;
  $("you-intrigue").hidden = !card;
  if (!card) return;
  $("you-intrigue-title").textContent = card.title;
  $("you-intrigue-text").textContent = card.text;
  $("you-intrigue-when").textContent = "Playable in: " + card.phases.map((p) => WINDOW_LABELS[p] || p.replace(/_/g, " ")).join(", ");
}

function renderPlayers(players) {
  app.players = players;
  const list = $("players-list");
  const alive = players.filter((p) => p.alive).length;
  $("players-count").textContent = `${alive} alive, ${players.length - alive} dead`;
  $("players-toggle").textContent = `Players ${alive}/${players.length}`;
  list.replaceChildren();
  for (const p of players) {
    const li = el("li", null, (p.alive ? "" : "dead ") + (p.you ? "me" : ""));
    li.append(el("span", p.label), el("span", p.name));
    li.append(el("span", p.kind === "bot" ? "bot" : "human", `badge ${p.kind}`));
    if (p.you) li.append(el("span", "you", "badge"));
    if (p.role) li.append(el("span", roleName(p.role), "badge role"));
    // Palermo: ghost, imprisoned and permanently out look alike as "dead" without it
    if (p.state) li.append(el("span", STATE_LABELS[p.state] || p.state, `badge state ${p.state}`));
    else if (!p.alive) li.append(el("span", "dead", "badge dead"));  // in words, not only struck through
    if (p.away) li.append(el("span", "away", "badge away"));
    if (p.replaced) li.append(el("span", p.stand_in ? `stand-in: ${p.stand_in} bot` : "stand-in: default actions", "badge replaced"));
    list.append(li);
  }
}

// A list whose options were rebuilt keeps the person's choice while it is still offered.
function keepChoice(select, chosen) {
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

// The creator of a forum game is its moderator: rulings on any seat (web/rulings.py).
function renderModerator(s) {
  const admin = store.get("admin");
  const kinds = s.rulings || [];
  $("moderator-panel").hidden = !admin || !kinds.length || !!s.over || !!s.spectator;
  if ($("moderator-panel").hidden) return;
  const fill = (select, values) => {
    const wanted = values.map(([value, text]) => `${value}:${text}`).join("|");
    if (select.dataset.options === wanted) return;  // keep the moderator's selection
    select.dataset.options = wanted;
    const chosen = select.value;
    select.replaceChildren(...values.map(([value, text]) => {
      const option = el("option", text); option.value = String(value); return option;
    }));
    keepChoice(select, chosen);
  };
  fill($("ruling-kind"), kinds.map((k) => [k, k]));
  fill($("ruling-seat"), s.players.map((p) => [p.seat, `${p.label} ${p.name}`]));
  $("ruling-form").onsubmit = async (event) => {
    event.preventDefault();
    const body = { kind: $("ruling-kind").value, seat: Number($("ruling-seat").value), value: $("ruling-value").value.trim() };
    try {
      await api("POST", `/api/games/${app.gameId}/rulings`, body, admin);
      $("ruling-note").textContent = `Ruling given: ${body.kind} on P${body.seat + 1}.`;
      $("ruling-value").value = "";
    } catch (err) { $("ruling-note").textContent = err.message; }
  };
}

// Forum games: private conversations, the latest newspaper, testaments received.
function renderForum(forum) {
  $("forum").hidden = !forum;
  if (!forum) return;
  $("forum-messages").replaceChildren(...forum.messages.map((m) =>
    el("li", `${m.phase[0].toUpperCase()}${m.day} ${m.from} → ${m.to.join(", ")}: ${m.text}`)));
  const paper = $("newspaper");
  paper.replaceChildren();
  if (!forum.newspaper) {
    paper.append(el("p", "No edition yet.", "hint"));
  } else {
    paper.append(el("p", forum.newspaper.edition, "hint"));
    const list = el("ul");
    for (const ad of forum.newspaper.ads) list.append(el("li", `${ad.pseudonym}: ${ad.text}`));
    if (!forum.newspaper.ads.length) list.append(el("li", "no ads"));
    paper.append(list);
  }
  $("testaments").replaceChildren(...forum.testaments.map((t) =>
    el("li", `${t.author}${t.public ? "" : " (to you)"}: ${t.text}`)));
}

function renderVotes(votes) {
  const box = $("votes");
  box.replaceChildren();
  if (!votes.entries.length) {
    box.append(el("p", "No votes yet.", "hint"));
    return;
  }
  // The vote usually closes the day: until the next one, the panel keeps the last record.
  box.append(el("p", votes.today ? "Today" : `Last vote: day ${votes.day}`, "hint"));
  for (const v of votes.entries) {
    box.append(el("p", v.text, "vote-line"));
    if (!v.tally || !v.tally.length) continue;
    const max = Math.max(...v.tally.map((t) => t.count));
    const grid = el("div", null, "tally");
    for (const t of v.tally) {
      const bar = el("div", null, "bar");
      bar.style.width = `${(100 * t.count) / max}%`;
      grid.append(el("span", t.label), bar, el("span", t.count));
    }
    box.append(grid);
  }
}

// Forum forms that carry text: with words in the box, the button sends them as the
// form's content (a private message, an ad, a testament, a death message).
const WRITTEN = new Set(["post", "pm", "ad", "testament", "murder"]);

// A forum turn offers one form per player ("private message to P2" … "to P12"): such a
// run of three or more becomes one row that names the form once, with a short button
// per player (its full label is the button's accessible name), so the many forms of a
// turn fit above the fold of a phone.
function renderForms(target, req, keys) {
  const rows = [];
  req.options.forEach((label, i) => {
    const m = /^(.*\S)\s+(P\d+)$/.exec(label);
    const last = rows[rows.length - 1];
    if (m && last && last.name === m[1]) last.items.push({ label, i, short: m[2] });
    else rows.push({ name: m ? m[1] : null, items: [{ label, i, short: m ? m[2] : label }] });
  });
  for (const row of rows) {
    if (!row.name || row.items.length < 3) {
      for (const it of row.items) target.append(choiceButton(it.label, it.i, req.turn, keys[it.i]));
      continue;
    }
    const group = el("div", null, "form-row");
    group.append(el("span", row.name, "form-name"));
    for (const it of row.items) {
      const b = choiceButton(it.short, it.i, req.turn, keys[it.i]);
      b.setAttribute("aria-label", it.label);
      b.title = it.label;
      group.append(b);
    }
    target.append(group);
  }
}

// The forum forms a turn does not list (agents.human.Form): one message to several
// players, a testament only chosen players receive, an ad under or the transfer of a
// pseudonym of one's own (req.pseudonyms). Players are typed as shown ("2,5,7" or
// "P2,P5"); the server builds the form and the game master may still refuse it (the
// reason is shown as any refusal is).
function renderWritten(target, req, keys) {
  const verbs = new Set(keys.map((k) => k.split(":")[0]));
  const owned = req.pseudonyms || [];
  const row = el("div", null, "form-row written");
  const seats = el("input");
  seats.id = "form-seats"; seats.type = "text"; seats.autocomplete = "off";
  seats.placeholder = "players, e.g. 2,5,7";
  seats.setAttribute("aria-label", "players the form names");
  row.append(el("span", "Write to", "form-name"), seats);
  if (verbs.has("pm")) row.append(writtenButton("message to them", "pm", req.turn));
  if (verbs.has("testament")) row.append(writtenButton("testament to them", "testament", req.turn));
  if (verbs.has("ad") && owned.length) {
    const pick = el("select");
    pick.id = "form-pseudonym";
    pick.setAttribute("aria-label", "your pseudonym");
    for (const name of owned) { const o = el("option", name); o.value = name; pick.append(o); }
    row.append(pick, writtenButton("ad under it", "ad", req.turn), writtenButton("give it to them", "give", req.turn));
  }
  if (row.querySelectorAll("button").length) target.append(row);
}

function writtenButton(label, verb, turn) {
  const b = el("button", label);
  b.type = "button";
  b.dataset.form = verb;
  b.onclick = () => {
    const typed = $("form-seats").value.split(",").map((s) => s.trim().replace(/^p/i, "")).filter(Boolean);
    const seats = typed.map((s) => (/^\d+$/.test(s) ? Number(s) - 1 : -1));
    if (verb !== "ad" && (!seats.length || seats.some((s) => s < 0))) {
      $("action-error").textContent = "type the players as seat numbers, e.g. 2,5,7";
      return;
    }
    const message = { type: "form", turn, verb, seats: verb === "ad" ? [] : seats, text: $("speech-text").value.trim() };
    if (verb === "ad" || verb === "give") message.pseudonym = $("form-pseudonym").value;
    // the words stay in the box until the form is taken (the next turn clears it,
    // `renderRequest`): a refused form keeps what the person wrote, to mend and resend
    if (send(message)) {
      for (const x of document.querySelectorAll("#action button")) x.disabled = true;
      $("action-error").textContent = "";
      parkFocus();
    }
  };
  return b;
}

function choiceButton(label, index, turn, key, kind = "") {
  const b = el("button", label);
  b.type = "button";
  b.dataset.choice = String(index);
  const name = choiceName(label, kind);
  if (name) b.setAttribute("aria-label", name);
  b.onclick = () => {
    const words = $("speech-text").value.trim();
    const verb = (key || "").split(":")[0];
    const message = app.forum && words && WRITTEN.has(verb)
      ? { type: "say", turn, text: words, choice: index }
      : { type: "act", turn, choice: index };
    if (send(message)) {  // the words stay until taken, as a written form's
      for (const x of document.querySelectorAll("#action button")) x.disabled = true;
      $("action-error").textContent = "";
      parkFocus();
    }
  };
  return b;
}

function renderRequest(req) {
  const panel = $("action");
  const same = Boolean(req) && app.turn === req.turn;
  const drafts = same ? WRITE_FIELDS.map(fieldDraft) : [];
  if (!same && app.turn !== null && app.turn !== undefined) closeDrafts(app.turn);
  const held = heldControl();
  if (held) $("prompt").focus();  // its button is rebuilt below: wait on the prompt meanwhile
  $("choices").replaceChildren(); $("phrase-choices").replaceChildren();
  if (!req) {
    app.turn = null; app.deadline = null;
    panel.classList.add("idle");
    panel.classList.remove("forum");
    const waiting = app.waiting;
    $("prompt").textContent = app.over ? "" : waiting ? waiting.text : "Waiting for the other players…";
    if (waiting && waiting.seconds_left !== null) app.deadline = Date.now() + waiting.seconds_left * 1000;
    $("speech").hidden = true; $("phrases").hidden = true;
    $("draft-back").disabled = true;  // no box to put a lost draft back in
    document.body.classList.remove("your-turn");
    document.title = TITLE;
    tick();
    return;
  }
  panel.classList.remove("idle");
  const fresh = app.turn !== req.turn;
  app.turn = req.turn;
  app.deadline = Date.now() + req.seconds_left * 1000;
  $("prompt").textContent = req.last_call ? `${req.prompt} — everyone else has answered: last call` : req.prompt;
  if (fresh) $("action-error").textContent = "";
  app.forum = req.kind === "forum";
  const target = req.free_text && !app.forum ? $("phrase-choices") : $("choices");
  const keys = req.keys || [];
  panel.classList.toggle("forum", app.forum);
  if (app.forum) { renderForms(target, req, keys); renderWritten(target, req, keys); }
  else req.options.forEach((label, i) => target.append(choiceButton(label, i, req.turn, keys[i], req.kind)));
  $("speech").hidden = !req.free_text; $("phrases").hidden = !req.free_text || app.forum;
  $("speech-text").placeholder = app.forum
    ? "Words to Say, or for a form…"
    : "Say something…";
  if (req.free_text) {
    const input = $("speech-text");
    input.maxLength = req.max_chars;
    for (const b of $("speech").querySelectorAll("button")) b.disabled = false;
    $("speech").onsubmit = (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      if (send({ type: "say", turn: req.turn, text })) {
        for (const x of document.querySelectorAll("#action button")) x.disabled = true;
        parkFocus();
      }
    };
  }
  document.body.classList.add("your-turn");
  document.title = "▶ Your turn · " + TITLE;
  if (fresh && app.notified !== req.turn) {
    app.notified = req.turn;
    notify(req.prompt);
    announce(`Your turn: ${$("prompt").textContent}`, true);
  }
  focusTurn(fresh, held);
  for (const draft of drafts) restoreField(draft);  // after the focus: caret and selection last
  $("draft-back").disabled = !req.free_text;
  $("draft-back").onclick = restoreLostDraft;
  tick();  // show the new countdown now, not at the next quarter-second
}

let audio = null;

// The page's one AudioContext, made at the first beep: browsers cap how many a page may
// hold open, so one per turn would silence the beep after a few turns.
function turnAudio() {
  audio = audio || new (window.AudioContext || window.webkitAudioContext)();
  if (audio.state === "suspended") audio.resume().catch(() => { /* sound is optional */ });
  return audio;
}

function notify(prompt) {
  // Only a page the player has touched may buzz: on a reloaded page or a second tab the
  // browser blocks the call and logs an error (test_an_untouched_page_does_not_buzz).
  const touched = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (navigator.vibrate && touched) navigator.vibrate(150);
  if ($("alerts").checked && document.hidden && window.Notification && Notification.permission === "granted") {
    try { new Notification("Mafia Arena: your turn", { body: prompt, tag: "mafia-turn" }); }
    catch { /* notifications are optional */ }
  }
  if (!$("sound").checked) return;
  try {
    const ctx = turnAudio();
    const osc = ctx.createOscillator(); const gain = ctx.createGain();
    osc.frequency.value = 660; gain.gain.value = 0.08;
    osc.connect(gain); gain.connect(ctx.destination);
    osc.start(); osc.stop(ctx.currentTime + 0.18);
  } catch { /* sound is optional */ }
}

function tick() {
  const timer = $("timer");
  if (!app.deadline) { timer.textContent = ""; timer.classList.remove("urgent"); return; }
  const left = Math.max(0, Math.round((app.deadline - Date.now()) / 1000));
  timer.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  timer.classList.toggle("urgent", left <= 10);
  warnLastSeconds(left);
}

// The countdown is never read second by second (the timer is not a live region): a
// turn's last URGENT_SECONDS are announced once, the moment they begin, unless its
// answer is already sent (its buttons disabled).
const URGENT_SECONDS = 10;

function warnLastSeconds(left) {
  if (app.turn === null || left > URGENT_SECONDS || left === 0 || app.warned === app.turn) return;
  if (!document.querySelector("#choices button:enabled, #speech button:enabled")) return;
  app.warned = app.turn;
  announce(`${left} second${left === 1 ? "" : "s"} left to answer.`, true);
}

// The end screen, once: said at once, and the focus taken to its title when the move
// panel (now hidden) held it or it was nowhere.
function announceEnd() {
  if (app.ended) return;
  app.ended = true;
  announce(`${$("end-title").textContent}. ${$("end-reason").textContent}`.trim(), true);
  if (focusIsFree()) $("end-title").focus();
}

function renderEnd(s) {
  app.over = true;
  const end = $("end");
  end.hidden = false;
  $("action").hidden = true;
  const r = s.reveal || { winner: s.winner, seats: [] };
  $("end-title").textContent = r.winner ? `Game over: ${r.winner} won` : "Game over: a draw";
  $("end-reason").textContent = r.reason || "";
  const tag = (p) => (p.you ? " (you)" : p.kind === "bot" && !/\bbot$/i.test(p.name) ? " (bot)" : "");
  const names = Object.fromEntries(s.players.map((p) => [p.seat, p.name + tag(p)]));
  const body = $("reveal").querySelector("tbody");
  body.replaceChildren();
  for (const seat of r.seats) {
    const tr = el("tr", null, (seat.won ? "won " : "") + (seat.seat === app.seat ? "me" : ""));
    tr.append(el("td", seat.label), el("td", names[seat.seat] || ""), el("td", roleName(seat.role)),
      el("td", seat.faction || ""), el("td", seat.won ? "won" : ""));
    body.append(tr);
  }
  document.title = TITLE + " · game over";
  announceEnd();
  renderRematch(s.spectator);
  if (!app.replay) loadReplay();
}

// ---------------------------------------------------------------- rematch
function renderRematch(spectator) {
  $("rematch-box").hidden = !!spectator;
  offerRematch($("rematch"), $("rematch-note"), app.rematch, app.credential);
}

// A player's rematch button (the game-over screen's, and the replay page's after a
// restart): their seat in the group's next game (made by the first to ask), kept on
// this device for that game's page, which it then opens; a refusal is said beside it.
function offerRematch(button, note, made, credential) {
  button.textContent = made ? "Join the rematch" : "Rematch with the same group";
  button.onclick = async () => {
    button.disabled = true;
    try {
      const joined = await api("POST", `/api/games/${app.gameId}/rematch`, {}, credential);
      const old = app.gameId;
      app.gameId = joined.game_id;
      store.set("seat", { credential: joined.credential, seat: joined.seat, resume: joined.resume, invite: null });
      app.gameId = old;
      location.assign(`/g/${joined.game_id}`);
    } catch (err) { note.textContent = err.message; button.disabled = false; }
  };
}

// ---------------------------------------------------------------- table chat
function renderChats(chats) {
  $("chat-panel").hidden = !chats.length;
  const writable = chats.filter((c) => c.writable);
  $("chat-title").textContent = chats.map((c) => c.title).join(" · ") || "Chat";
  $("chat-form").hidden = !writable.length;
  const select = $("chat-channel");
  const names = writable.map((c) => c.name).join(",");
  if (select.dataset.names !== names) {
    select.dataset.names = names;
    const chosen = select.value;
    select.replaceChildren(...writable.map((c) => { const o = el("option", c.title); o.value = c.name; return o; }));
    keepChoice(select, chosen);
  }
  select.hidden = writable.length < 2;
  $("chat-form").onsubmit = (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text || !select.value) return;
    $("chat-error").textContent = "";
    if (send({ type: "chat", channel: select.value, text })) {
      app.chatSent = text;
      $("chat-text").value = "";
    }
  };
}

// A refused chat line comes back to an empty box, to mend and send again (the box is
// cleared on sending so that a taken line does not linger; the server answers only a
// refusal).
function refusedChat(reason) {
  $("chat-error").textContent = reason;
  if (app.chatSent && !$("chat-text").value) $("chat-text").value = app.chatSent;
  app.chatSent = "";
}

function renderChat(msg) {
  const list = $("chat-lines");
  if (msg.reset) list.replaceChildren();
  for (const line of msg.lines) {
    const li = el("li", null, "chat");
    li.append(el("span", `[${line.tag}]`, "tag"));  // the server's words (web/chat.py)
    li.append(el("span", line.author, "speaker"), document.createTextNode(": "), el("q", line.text, "said"));
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

async function loadReplay(attempt = 0) {
  try {
    app.replay = await api("GET", `/api/games/${app.gameId}/replay`);
  } catch (err) {
    if (attempt < 5) setTimeout(() => loadReplay(attempt + 1), 500);
    return;
  }
  fillReplay($("replay-seat"), $("replay"), app.replay, (seat) => `${seat.label} (${roleName(seat.role, app.replay.role_titles)})`);
  if (app.seat !== null) { $("replay-seat").value = String(app.seat); $("replay-seat").onchange(); }
}

