// tcecd live page: follows `tcecd web`'s websocket (protocol: docs/web.md).
// A snapshot on connect, then deltas (whole sections) and moves (one ply appended).
import { Chessground } from './vendor/chessground/chessground.min.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

const st = { sections: {}, seq: 0, offset: 0, mqtt: { up: false }, ws: null, live: false };
// Wall-clock time (ms since the epoch) each ply was put in the DOM, key "game:ply":
// read by the browser tests and bench/web.py to measure MQTT -> DOM latency.
window.tcecdSeen = {};
window.tcecdRecv = {}; // when the move's message reached the page (bench/web.py)
// Every standings table shown, as [name, points] rows (for the browser tests).
window.tcecdStandings = [];
window.tcecdState = st;

const board = Chessground($('board'), { viewOnly: true, coordinates: true, animation: { enabled: false } });

// -- connection -----------------------------------------------------------------------
let backoff = 250;
function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  st.ws = ws;
  ws.onopen = () => { backoff = 250; st.live = true; renderStatus(); };
  ws.onmessage = (e) => handle(JSON.parse(e.data));
  ws.onclose = () => {
    st.live = false; renderStatus();
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 4000);
  };
}

function handle(msg) {
  st.offset = Date.now() - msg.now;
  st.mqtt = msg.mqtt || st.mqtt;
  if (msg.t === 'snapshot') {
    st.sections = msg.sections; st.seq = msg.seq;
    renderAll();
    return;
  }
  if (msg.t === 'link') { renderStatus(); return; }
  if (msg.seq !== st.seq + 1) { st.ws.send('snapshot'); return; } // a gap: start again
  st.seq = msg.seq;
  if (msg.t === 'delta') {
    Object.assign(st.sections, msg.sections);
    for (const name of Object.keys(msg.sections)) RENDER[name]();
    if ('event' in msg.sections) renderStatus();
  } else if (msg.t === 'move') {
    window.tcecdRecv[`${msg.game}:${msg.move.ply}`] ??= Date.now();
    const g = st.sections.game;
    if (!g || g.id !== msg.game) { st.ws.send('snapshot'); return; }
    Object.assign(g, msg.head);
    g.moves.push(msg.move);
    renderGame(true);
  }
}

// Text changed only when it differs: an unchanged node costs no style, layout or paint.
function setText(id, text) {
  const el = $(id);
  if (el.textContent !== text) el.textContent = text;
}

// -- rendering ------------------------------------------------------------------------
function renderAll() { for (const f of Object.values(RENDER)) f(); renderStatus(); }

function renderStatus() {
  const ev = st.sections.event;
  const badge = $('status');
  let text, cls;
  if (!st.live) { text = 'connection to tcecd web lost, reconnecting…'; cls = 'down'; }
  else if (!st.mqtt.up) { text = 'broker unreachable, retrying…'; cls = 'down'; }
  else if (!ev || !ev.status) { text = 'waiting for the daemon…'; cls = ''; }
  else if (ev.status === 'online') { text = 'daemon online'; cls = 'online'; }
  else { text = `daemon offline${ev.status_ts ? ' since ' + new Date(ev.status_ts).toLocaleTimeString() : ''}`; cls = 'offline'; }
  badge.textContent = text;
  badge.className = `badge ${cls}`;
  badge.dataset.state = cls || 'waiting';
}

function renderEvent() {
  const ev = st.sections.event;
  $('event-name').textContent = ev?.name || 'tcecd live';
  document.title = ev?.name ? `${ev.name} — tcecd live` : 'tcecd live';
  $('event-info').textContent = ev ? [ev.site, ev.system, ev.time_control && `TC ${ev.time_control}`,
    ev.rounds && `${ev.rounds} rounds`].filter(Boolean).join(' · ') : '';
  const fin = $('finished');
  fin.hidden = !ev?.finished;
  if (ev?.finished) fin.textContent = `Event finished${ev.finished.winner ? ' — winner: ' + ev.finished.winner : ''}`;
}

function fmtClock(ms) {
  if (ms == null) return '–';
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  const two = (n) => String(n).padStart(2, '0');
  // Tenths only in the last 10 s: the text (and so the paint) changes once a second.
  return h ? `${h}:${two(m)}:${two(s % 60)}` : s < 10 ? `${two(m)}:${two(s % 60)}.${Math.floor(ms % 1000 / 100)}` : `${two(m)}:${two(s % 60)}`;
}
const fmtNum = (n) => n == null ? '–' : n >= 1e9 ? (n / 1e9).toFixed(1) + 'G' : n >= 1e6 ? (n / 1e6).toFixed(1) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n);

function tickClocks() {
  const g = st.sections.game;
  for (const side of ['white', 'black']) {
    const el = $(`${side}-clock`);
    if (!g) { el.textContent = '–'; el.classList.remove('running'); continue; }
    let ms = g[`${side}_clock_ms`];
    const running = !g.result && g.turn === side[0] && ms != null && g.clock_ts;
    if (running) ms -= (Date.now() - st.offset) - Date.parse(g.clock_ts);
    const text = fmtClock(ms);
    if (el.textContent !== text) el.textContent = text; // no layout or paint when unchanged
    if (el.classList.contains('running') !== Boolean(running)) el.classList.toggle('running', Boolean(running));
  }
}
setInterval(tickClocks, 100);

function moveCell(m, last) {
  const extra = m.book ? 'book' : [m.eval, m.depth != null ? `d${m.depth}${m.seldepth != null ? '/' + m.seldepth : ''}` : null].filter((x) => x != null).join(' ');
  return `<span class="mv${last ? ' last' : ''}" data-ply="${m.ply}" title="${esc(m.nodes != null ? 'nodes ' + m.nodes : '')}">${esc(m.san)} <small>${esc(extra)}</small></span>`;
}

function renderMoves(g, append) {
  const box = $('moves');
  const moves = g ? g.moves : [];
  const startBlack = g && g.start_fen && g.start_fen.split(' ')[1] === 'b';
  const fullmove0 = g && g.start_fen ? parseInt(g.start_fen.split(' ')[5] || '1', 10) : 1;
  const rowOf = (i) => Math.floor((i + (startBlack ? 1 : 0)) / 2);
  if (append && moves.length > 1) {
    const i = moves.length - 1;
    box.querySelector('.mv.last')?.classList.remove('last');
    const r = rowOf(i);
    let row = box.querySelector(`.row[data-row="${r}"]`);
    if (!row) {
      box.insertAdjacentHTML('beforeend', `<div class="row" data-row="${r}"><span class="no">${fullmove0 + r}.</span></div>`);
      row = box.lastElementChild;
    }
    row.insertAdjacentHTML('beforeend', moveCell(moves[i], true));
  } else {
    const rows = [];
    moves.forEach((m, i) => {
      const r = rowOf(i);
      if (!rows[r]) rows[r] = [`<span class="no">${fullmove0 + r}.</span>`, (i === 0 && startBlack) ? '<span class="mv">…</span>' : ''];
      rows[r].push(moveCell(m, i === moves.length - 1));
    });
    box.innerHTML = rows.map((cells, r) => `<div class="row" data-row="${r}">${cells.join('')}</div>`).join('');
  }
  // Scrolled in the next frame, whose layout is due anyway: reading scrollHeight now
  // would lay the page out twice per move.
  if (!scrollPending) {
    scrollPending = true;
    requestAnimationFrame(() => { scrollPending = false; box.scrollTop = box.scrollHeight; });
  }
}
let scrollPending = false;

function evalPawns(m) {
  if (m.mate != null) return m.mate > 0 ? 5 : -5;
  if (m.cp != null) return Math.max(-5, Math.min(5, m.cp / 100));
  return null;
}

// The graph's elements are made once; a move changes only the lines' points.
const graph = $('graph');
graph.innerHTML = '<line x1="0" y1="60" x2="400" y2="60" stroke="#999" stroke-dasharray="3"/>'
  + '<polyline fill="none" stroke="#d4a017" stroke-width="2" points=""/>'
  + '<polyline fill="none" stroke="#263238" stroke-width="2" points=""/>'
  + '<text x="3" y="12" font-size="10" fill="#666">+5</text><text x="3" y="116" font-size="10" fill="#666">−5</text>';
const [graphW, graphB] = graph.querySelectorAll('polyline');

function renderGraph(g) {
  const moves = g ? g.moves : [];
  const n = Math.max(moves.length, 20);
  const x = (i) => (i + 0.5) * 400 / n, y = (v) => 60 - v * 11;
  const lines = { w: [], b: [] };
  const whiteOdd = !(g && g.start_fen && g.start_fen.split(' ')[1] === 'b');
  moves.forEach((m, i) => {
    const v = evalPawns(m);
    if (v == null || m.book) return;
    lines[(m.ply % 2 === 1) === whiteOdd ? 'w' : 'b'].push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  const w = lines.w.join(' '), b = lines.b.join(' ');
  if (graphW.getAttribute('points') !== w) graphW.setAttribute('points', w);
  if (graphB.getAttribute('points') !== b) graphB.setAttribute('points', b);
}

function renderGame(append = false) {
  const g = st.sections.game;
  renderMoves(g, append);
  setText('white-name', g ? g.white.name : 'White');
  setText('black-name', g ? g.black.name : 'Black');
  setText('game-id', g ? `Game ${g.id}` : '');
  // A Chess960 game: the board is drawn from each FEN, so castling needs no move
  // logic here (chessground 9 has no chess960 option; its autoCastle, unused by a
  // view-only board, takes king-takes-rook too); lastMove is the king's and the
  // rook's square, as the uci of Chess960 castling says (e1h1).
  setText('opening', g?.opening || (g?.chess960 ? 'Chess960' : ''));
  setText('game-result', g?.result ? `${g.result}${g.termination ? ' (' + g.termination + ')' : ''}` : '');
  const last = g?.last;
  const uci = last?.uci;
  board.set({
    fen: g?.fen || 'start',
    lastMove: uci ? [uci.slice(0, 2), uci.slice(2, 4)] : undefined,
    turnColor: g?.turn === 'b' ? 'black' : 'white',
  });
  setText('info-move', last ? `${last.ply}. ${last.san}` : '–');
  setText('info-eval', last?.book ? 'book' : String(last?.eval ?? '–'));
  setText('info-depth', last?.depth != null ? `${last.depth}${last.seldepth != null ? '/' + last.seldepth : ''}` : '–');
  setText('info-nodes', fmtNum(last?.nodes));
  setText('info-nps', last?.nps != null ? fmtNum(last.nps) + 'nps' : '–');
  setText('info-tb', fmtNum(last?.tbhits));
  setText('info-pv', last?.pv?.length ? last.pv.join(' ') : '–');
  renderGraph(g);
  tickClocks();
  // Every part of the page that shows the move is written: note when (the tests and
  // bench/web.py measure MQTT -> DOM with it).
  const now = Date.now();
  if (g) for (const m of append ? g.moves.slice(-1) : g.moves) {
    const key = `${g.id}:${m.ply}`;
    if (!(key in window.tcecdSeen)) window.tcecdSeen[key] = now;
  }
}

function renderRound() {
  const r = st.sections.round;
  $('round-no').textContent = r ? `${r.round}${r.rounds ? ' / ' + r.rounds : ''}` : '';
  $('round').tBodies[0].innerHTML = r ? r.games.map((g) =>
    `<tr class="${g.running ? 'playing' : ''}" data-game="${esc(g.game)}"><td>${esc(g.game)}</td><td class="name">${esc(g.white)}</td><td class="name">${esc(g.black)}</td><td class="result" title="${esc(g.termination)}">${esc(g.result ?? (g.running ? 'playing' : ''))}</td></tr>`).join('') : '';
  $('bye').textContent = r?.bye ? `Bye: ${r.bye}` : '';
}

function renderStandings() {
  const s = st.sections.standings;
  const t = $('standings');
  $('standings-after').textContent = s ? (s.final ? '(final)' : `after round ${s.after_round}`) : '';
  if (!s) { t.tHead.innerHTML = ''; t.tBodies[0].innerHTML = ''; return; }
  t.tHead.innerHTML = `<tr><th>#</th><th>Engine</th><th>Points</th><th>Games</th>${s.tiebreaks.map((n) => `<th>${esc(n)}</th>`).join('')}<th>Strikes</th></tr>`;
  t.tBodies[0].innerHTML = s.rows.map((r) =>
    `<tr class="${r.disqualified ? 'dq' : ''}" data-id="${esc(r.id)}"><td>${r.rank}</td><td class="name">${esc(r.name)}</td><td class="score">${r.score}</td><td>${r.games}</td>${s.tiebreaks.map((n) => `<td>${r.tiebreaks[n] ?? ''}</td>`).join('')}<td>${r.strikes}${r.disqualified ? ' DQ' : ''}</td></tr>`).join('');
  window.tcecdStandings.push({ after_round: s.after_round, final: s.final,
    rows: [...t.tBodies[0].rows].map((tr) => [tr.cells[1].textContent, Number(tr.cells[2].textContent)]) });
}

function renderCrosstable() {
  const c = st.sections.crosstable;
  const t = $('crosstable');
  if (!c) { t.tHead.innerHTML = ''; t.tBodies[0].innerHTML = ''; return; }
  t.tHead.innerHTML = `<tr><th>#</th><th>Engine</th><th>Pts</th>${c.players.map((p) => `<th title="${esc(p.name)}">${esc(p.abbr)}</th>`).join('')}</tr>`;
  t.tBodies[0].innerHTML = c.players.map((p) =>
    `<tr><td>${p.rank ?? ''}</td><td class="name">${esc(p.name)}</td><td>${p.score ?? ''}</td>${c.players.map((q) => `<td>${q.name === p.name ? '×' : esc((c.cells[p.name] || {})[q.name] || '')}</td>`).join('')}</tr>`).join('');
}

function renderEngines() {
  const e = st.sections.engines;
  const struck = e ? e.engines.filter((x) => x.strikes || x.disqualified) : [];
  $('engines').innerHTML = struck.length ? struck.map((x) => `<span class="${x.disqualified ? 'dq' : ''}">${esc(x.name)}: ${x.strikes} strike(s)${x.disqualified ? ', disqualified' + (x.reason ? ' (' + esc(x.reason) + ')' : '') : ''}</span>`).join('<br>') : '<span class="muted">No strikes.</span>';
  $('faults').innerHTML = e ? e.faults.slice().reverse().map((f) => `<li>${esc(f.ts ? new Date(f.ts).toLocaleTimeString() : '')} <b>${esc(f.engine)}</b> ${esc(f.kind)}${f.game ? ' in game ' + esc(f.game) : ''}: ${esc(f.detail)}${f.strikes != null ? ' (strike ' + f.strikes + ')' : ''}</li>`).join('') : '';
}

// The forecast is another component's JSON: shown as a table of its rows, whatever the columns.
function flat(row, prefix = '', out = {}) {
  for (const [k, v] of Object.entries(row)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) flat(v, `${prefix}${k}.`, out);
    else out[prefix + k] = Array.isArray(v) ? v.map((x) => typeof x === 'number' ? +x.toFixed(3) : x).join(' ') : v;
  }
  return out;
}
function renderForecast() {
  const f = st.sections.forecast;
  const box = $('forecast');
  const rows = f && Array.isArray(f.rows) ? f.rows : null;
  if (!rows || !rows.length) { box.innerHTML = '<p class="muted">No forecast published.</p>'; return; }
  const flatRows = rows.map((r) => flat(r));
  const cols = [...new Set(flatRows.flatMap((r) => Object.keys(r)))];
  const cell = (v) => typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : esc(v);
  box.innerHTML = `<table class="grid"><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${flatRows.map((r) => `<tr>${cols.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`).join('')}</tbody></table>`
    + (f.after_round != null ? `<p class="muted">after round ${esc(f.after_round)}</p>` : '');
}

const RENDER = {
  event: renderEvent, game: () => renderGame(false), round: renderRound, standings: renderStandings,
  crosstable: renderCrosstable, engines: renderEngines, forecast: renderForecast,
};

connect();
