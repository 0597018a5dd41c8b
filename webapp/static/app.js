/* The Mini App's page: no framework, no CDN. It reads initData from the URL fragment as
   Telegram's telegram-web-app.js does (#tgWebAppData=…), proves the user with it as the first
   WebSocket message, draws the state the server pushes and sends moves; the server decides
   everything (webapp/protocol.py). */
"use strict";

const WORDS = {
  zh: { play: "出牌", pass: "不出", hint: "提示", auto: "托管", unauto: "取消托管", give: "进贡", back: "还贡",
        cards: "张", you: "我", passed: "不出", lead: "你先出", turn: "轮到你", wait: "等待", connecting: "连接中…",
        reconnect: "连接断开，正在重连…", over: "比赛结束", pick: "选一种出法", lang: "EN", ai: "电脑", out: "游",
        sel: "选一张牌", tally: "记牌器", RJ: "大王", BJ: "小王", wild: "配" },
  en: { play: "Play", pass: "Pass", hint: "Hint", auto: "Auto", unauto: "Stop auto", give: "Tribute", back: "Return",
        cards: "", you: "You", passed: "pass", lead: "Your lead", turn: "Your turn", wait: "Waiting", connecting: "Connecting…",
        reconnect: "Connection lost, reconnecting…", over: "Match over", pick: "Pick a reading", lang: "中文", ai: "AI", out: "out",
        sel: "Pick one card", tally: "Cards out", RJ: "RJ", BJ: "BJ", wild: "Wild" },
};
const RANKS = { T: "10" };
const $ = (id) => document.getElementById(id);

const fragment = new URLSearchParams(location.hash.slice(1));
const initData = fragment.get("tgWebAppData") || "";
const tableParam = new URLSearchParams(location.search).get("t");
let locale = pickLocale();
let state = null;
let selected = new Set();   // positions in the hand's display order
let socket = null;
let backoff = 500;
let finished = false;       // the server said bye: no reconnect
let clockAt = 0;
let counterOpen = remembered("counter") !== "closed";  // 记牌器 open until the player closes it

function remembered(key) {
  try { return localStorage.getItem(key); } catch (e) { return null; }
}

function remember(key, value) {
  try { localStorage.setItem(key, value); } catch (e) { /* private mode: this page only */ }
}

function pickLocale() {
  const saved = sessionStorage.getItem("locale");
  if (saved) return saved;
  try {
    const user = JSON.parse(new URLSearchParams(initData).get("user") || "{}");
    return (user.language_code || "").startsWith("en") ? "en" : "zh";
  } catch (e) { return "zh"; }
}

function applyTheme() {
  const raw = fragment.get("tgWebAppThemeParams");
  if (!raw) return;
  try {
    const theme = JSON.parse(raw);
    for (const [key, value] of Object.entries(theme)) {
      if (/^#[0-9a-fA-F]{3,8}$/.test(value)) {
        document.documentElement.style.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
      }
    }
    document.documentElement.classList.add("tg");
  } catch (e) { /* no theme: the page's own colours */ }
}

function w(key) { return WORDS[locale][key]; }

function connect() {
  status(state ? w("reconnect") : w("connecting"));
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => {
    const hello = { t: "hello", init: initData, locale };
    if (tableParam && /^\d+$/.test(tableParam)) hello.table = Number(tableParam);
    socket.send(JSON.stringify(hello));
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    socket = null;
    if (finished) return;
    status(w("reconnect"));
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 8000);
  };
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify(message));
  if (message.t !== "ping" && !moved) moved = Date.now();  // watchSocket expects an answer
}

function receive(message) {
  if (message.t === "state") {
    backoff = 500;
    status("");
    const newHand = !state || state.version !== message.version || state.deal !== message.deal;
    const oldHand = state ? flat(state.hand).join() : "";
    state = message;
    clockAt = Date.now();
    if (newHand && flat(state.hand).join() !== oldHand) selected.clear();
    $("readings").hidden = true;
    draw();
  } else if (message.t === "hint") {
    selectCards(message.cards);
    if (!message.cards.length) toast(w("pass"));
  } else if (message.t === "readings") {
    showReadings(message.options);
  } else if (message.t === "refused") {
    toast(message.text);
  } else if (message.t === "bye") {
    finished = true;
    status(message.text);
    document.body.dataset.refused = message.code;
  }
}

function flat(groups) { return groups.flat(); }

function status(text) { $("status").textContent = text; }

let toastTimer = 0;
function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 2600);
}

function face(card) {
  if (card === "BJ") return { rank: "小", suit: "王", red: false, joker: true };
  if (card === "RJ") return { rank: "大", suit: "王", red: true, joker: true };
  const suit = { S: "♠", H: "♥", C: "♣", D: "♦" }[card[0]];
  return { rank: RANKS[card[1]] || card[1], suit, red: card[0] === "H" || card[0] === "D", joker: false };
}

function mini(card) {
  const f = face(card);
  const span = document.createElement("span");
  span.className = "mini" + (f.red ? " red" : "") + (isWild(card) ? " wild" : "");
  span.textContent = f.joker ? f.rank + f.suit : f.suit + f.rank;
  return span;
}

function isWild(card) { return state && card === "H" + state.level; }

function myTurn() { return state && state.seat !== null && state.to_act.includes(state.seat); }

function draw() {
  $("header").textContent = state.header;
  $("lang").textContent = w("lang");
  drawSeats();
  drawTrick();
  drawCounter();
  drawResult();
  drawHand();
  drawActions();
}

const PLACES = ["me", "right", "top", "left"];  // seats in playing order from the viewer's

function drawSeats() {
  const me = state.seat === null ? 0 : state.seat;
  for (let offset = 0; offset < 4; offset++) {
    const info = state.seats[(me + offset) % 4];
    const box = $("seat-" + PLACES[offset]);
    box.replaceChildren();
    box.classList.toggle("turn", state.to_act.includes(info.seat));
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = (offset === 0 && state.seat !== null ? w("you") + " · " : "") + info.name +
      (info.ai ? ` (${w("ai")})` : "") + (info.autoplay ? " 🤖" : "");
    box.append(name);
    const count = document.createElement("div");
    count.className = "count" + (info.count !== null && info.count <= 10 && info.count > 0 ? " few" : "");
    count.textContent = info.place ? `${info.place}${w("out")}` :
      info.count === null ? "" : `${info.count}${w("cards")}`;
    box.append(count);
    const played = document.createElement("div");
    played.className = "played";
    if (info.play) info.play.forEach((card) => played.append(mini(card)));
    else if (info.passed) played.textContent = w("passed");
    box.append(played);
  }
}

function drawTrick() {
  const cards = $("trick-cards");
  cards.replaceChildren();
  if (state.trick) state.trick.cards.forEach((card) => cards.append(mini(card)));
  let text = state.trick_text;
  if (myTurn() && state.phase === "play" && !state.trick) text = w("lead");
  else if (myTurn()) text = (text ? text + " · " : "") + w("turn");
  $("trick-text").textContent = text;
}

/* 记牌器 (only in the seat's view where the table's rules turn it on): per rank, strongest
   first, the cards still in the other hands, then the wildcards (配); a button opens and closes it. */
function drawCounter() {
  const counter = state.counter;
  const toggle = $("tally");
  toggle.hidden = !counter;
  toggle.textContent = w("tally");
  toggle.setAttribute("aria-pressed", String(counterOpen));
  const box = $("counter");
  box.hidden = !counter || !counterOpen;
  box.replaceChildren();
  if (box.hidden) return;
  box.setAttribute("aria-label", w("tally"));
  for (const [rank, left] of [...counter.ranks, ["wild", counter.wild]]) {
    const cell = document.createElement("div");
    cell.className = "tally" + (left === 0 ? " gone" : "") + (rank === state.level ? " level" : "") +
      (rank === "wild" ? " wild" : "");
    cell.dataset.rank = rank;
    const label = document.createElement("b");
    label.textContent = WORDS[locale][rank] || RANKS[rank] || rank;
    const count = document.createElement("span");
    count.textContent = String(left);
    cell.append(label, count);
    box.append(cell);
  }
}

function drawResult() {
  const box = $("result");
  box.hidden = !state.result;
  box.textContent = state.result ? (state.match_over ? w("over") + "\n" : "") + state.result : "";
}

function exchangeChoices() {
  if (!myTurn()) return null;
  if (state.tribute.length) return state.tribute;
  if (state.return.length) return state.return;
  return null;
}

/* The hand is laid out a column per rank, as phone card apps lay it: the cards of one rank in one
   理牌 group stack downwards, the columns run left to right, and the groups stand apart. Every rank
   shows in one place (a bomb is one column, counted at a glance), and the ranks side by side are
   one finger's width apart, so a slide along the top takes a straight in one gesture wherever
   the hand would have wrapped to a second row. */
const CARD_W = 40;
const CARD_H = 54;
const RAISE = 8;        // a selected card stands up this far
const COLUMN_MAX = 44;  // columns never further apart than this (a small hand)
const GROUP_GAP = 6;
const DROP = 27;        // a card below another shows its rank and suit
const STACK = 4 * DROP; // a column taller than five cards closes up to stay this tall

function handColumns() {
  const columns = [];
  let position = 0;
  state.hand.forEach((group, g) => {
    let column = null;
    group.forEach((card, i) => {
      if (!column || rankOf(card) !== column.rank) {
        column = { rank: rankOf(card), gap: g > 0 && i === 0, cards: [] };
        columns.push(column);
      }
      column.cards.push({ card, position });
      position += 1;
    });
  });
  return columns;
}

function drawHand() {
  const hand = $("hand");
  hand.replaceChildren();
  const columns = handColumns();
  const gaps = columns.filter((column) => column.gap).length * GROUP_GAP;
  const room = hand.clientWidth - 16 - CARD_W - 4 - gaps;
  const step = columns.length > 1 ? Math.min(COLUMN_MAX, room / (columns.length - 1)) : 0;
  const tallest = Math.max(1, ...columns.map((column) => column.cards.length));
  const drop = tallest > 1 ? Math.min(DROP, STACK / (tallest - 1)) : 0;
  const box = document.createElement("div");
  box.className = "columns";
  box.style.height = `${RAISE + CARD_H + drop * (tallest - 1)}px`;
  const choices = exchangeChoices();
  let x = 0;
  columns.forEach((column, c) => {
    if (column.gap && c > 0) x += GROUP_GAP;
    column.cards.forEach(({ card, position }, k) => {
      const el = cardElement(card, position, choices);
      el.dataset.column = String(c);
      el.style.left = `${x}px`;
      el.style.top = `${RAISE + k * drop}px`;
      box.append(el);
    });
    x += step;
  });
  hand.append(box);
}

function cardElement(card, position, choices) {
  const f = face(card);
  const el = document.createElement("div");
  el.className = "card" + (f.red ? " red" : "") + (f.joker ? " joker" : "") + (isWild(card) ? " wild" : "") +
    (selected.has(position) ? " sel" : "") + (choices && !choices.includes(card) ? " off" : "");
  el.style.zIndex = String(position + 1);
  el.dataset.position = String(position);
  el.dataset.card = card;
  const rank = document.createElement("span");
  rank.textContent = f.rank;
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = f.suit;
  el.append(rank, suit);
  return el;
}

function drawActions() {
  const choices = exchangeChoices();
  const playing = state.phase === "play" && myTurn() && !state.stopped;
  $("play").textContent = w("play");
  $("pass").textContent = w("pass");
  $("hint").textContent = w("hint");
  $("auto").textContent = state.autoplay ? w("unauto") : w("auto");
  $("give").textContent = state.tribute.length ? w("give") : w("back");
  for (const id of ["play", "pass", "hint"]) $(id).hidden = Boolean(choices);
  $("give").hidden = !choices;
  $("give").disabled = !choices || selected.size !== 1;
  $("play").disabled = !playing || selected.size === 0;
  $("pass").disabled = !playing || !state.trick || state.trick.seat === state.seat;
  $("hint").disabled = !playing;
  $("auto").hidden = state.seat === null || state.match_over;
}

function handCards() { return flat(state.hand); }

function selectedCards() { return [...selected].sort((a, b) => a - b).map((p) => handCards()[p]); }

function selectCards(cards) {
  selected.clear();
  const hand = handCards();
  for (const card of cards) {
    const position = hand.findIndex((c, p) => c === card && !selected.has(p));
    if (position >= 0) selected.add(position);
  }
  drawHand();
  drawActions();
}

/* Tap a card to select it; press and slide across cards to select (or unselect) them: along the
   columns' tops for a run, down a column for a rank's cards. A slide that selects across five
   ranks or more takes one card of each rank: a 顺子 wants one of each, wherever the finger
   crossed a column. */
const STRAIGHT_RANKS = 5;
let sweep = null;
function cardAt(x, y) {
  const el = document.elementFromPoint(x, y);
  return el && el.closest ? el.closest(".card") : null;
}
function rankOf(card) { return card === "BJ" || card === "RJ" ? card : card[1]; }
function sweptPositions() {
  const ranks = new Map();  // rank → the first of its cards the finger crossed
  for (const touch of sweep.touched) if (!ranks.has(touch.rank)) ranks.set(touch.rank, touch.position);
  if (!sweep.adding || ranks.size < STRAIGHT_RANKS) return sweep.touched.map((touch) => touch.position);
  return [...ranks.values()];
}
function touchCard(el) {
  if (!el || !sweep) return;
  const position = Number(el.dataset.position);
  if (sweep.touched.some((touch) => touch.position === position)) return;
  const choices = exchangeChoices();
  if (choices) {
    if (!choices.includes(el.dataset.card)) return;
    sweep.touched.push({ position, rank: null });
    selected.clear();
    if (sweep.adding) selected.add(position);
  } else {
    sweep.touched.push({ position, rank: rankOf(el.dataset.card) });
    selected = new Set(sweep.before);
    for (const swept of sweptPositions()) if (sweep.adding) selected.add(swept); else selected.delete(swept);
  }
  drawHand();
  drawActions();
}
function onDown(event) {
  const el = cardAt(event.clientX, event.clientY);
  if (!el || !state) return;
  sweep = { adding: !selected.has(Number(el.dataset.position)), before: new Set(selected), touched: [] };
  touchCard(el);
  event.preventDefault();
}
function onMove(event) {
  if (sweep) touchCard(cardAt(event.clientX, event.clientY));
}
function onUp() { sweep = null; }

function showReadings(options) {
  const box = $("readings");
  box.replaceChildren();
  const title = document.createElement("div");
  title.textContent = w("pick");
  title.style.width = "100%";
  title.style.textAlign = "center";
  box.append(title);
  options.forEach((option, index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = option.text;
    button.onclick = () => { send({ t: "play", cards: selectedCards(), reading: index }); box.hidden = true; };
    box.append(button);
  });
  box.hidden = false;
}

function tickClock() {
  const box = $("clock");
  if (!state || !state.clock || !myTurn()) { box.textContent = ""; return; }
  const left = Math.max(0, Math.ceil(state.clock.left - (Date.now() - clockAt) / 1000));
  box.textContent = `⏱${left}s`;
}

function init() {
  applyTheme();
  document.documentElement.lang = locale;
  const hand = $("hand");
  hand.addEventListener("pointerdown", onDown);
  window.addEventListener("pointermove", onMove);
  window.addEventListener("pointerup", onUp);
  window.addEventListener("pointercancel", onUp);
  window.addEventListener("resize", () => { if (state) drawHand(); });
  $("play").onclick = () => send({ t: "play", cards: selectedCards() });
  $("pass").onclick = () => { selected.clear(); send({ t: "pass" }); };
  $("hint").onclick = () => send({ t: "hint" });
  $("give").onclick = () => {
    const [card] = selectedCards();
    if (card) send({ t: state.tribute.length ? "tribute" : "return", card });
  };
  $("tally").onclick = () => {
    counterOpen = !counterOpen;
    remember("counter", counterOpen ? "open" : "closed");
    drawCounter();
  };
  $("auto").onclick = () => send({ t: "autoplay", on: !state.autoplay });
  $("lang").onclick = () => {
    locale = locale === "zh" ? "en" : "zh";
    sessionStorage.setItem("locale", locale);
    document.documentElement.lang = locale;
    send({ t: "locale", locale });
    if (state) draw();
  };
  setInterval(tickClock, 500);
  connect();
}

/* A frozen leader (SIGSTOP, a paused machine) keeps the socket open and says nothing, and a
   browser sends no pings of its own: after PING_MS of silence the page asks, and with no answer
   within PONG_MS it drops that socket and reconnects (through the proxy, to the process that
   leads now). A move the server has not answered within ANSWER_MS asks at once: the player is
   looking at the screen for it. */
const PING_MS = 10000;
const ANSWER_MS = 2000;
const PONG_MS = 5000;
let watched = null;
let heard = 0;
let asked = 0;
let moved = 0;  // when a move went out that nothing has answered yet
function watchSocket() {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  const now = Date.now();
  if (socket !== watched) {
    watched = socket;
    heard = now;
    asked = 0;
    socket.addEventListener("message", () => { heard = Date.now(); asked = 0; moved = 0; });
  }
  if (asked && now - asked > PONG_MS) {
    const dead = socket;
    const reconnect = dead.onclose;
    dead.onclose = null;
    dead.close();
    watched = null;
    if (reconnect) reconnect();
  } else if (!asked && (now - heard > PING_MS || (moved && now - moved > ANSWER_MS))) {
    asked = now;
    send({ t: "ping" });
  }
}
setInterval(watchSocket, 1000);

init();
