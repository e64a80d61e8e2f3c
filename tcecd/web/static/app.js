// tcecd live page: follows `tcecd web`'s websocket (protocol: docs/web.md).
// A snapshot on connect, then deltas (whole sections) and moves (one ply appended).
import { Chessground } from './vendor/chessground/chessground.min.js';

//
// Everything the stream carries reaches the DOM as text (textContent, attribute values
// set one by one), never as markup: a name or a value is shown as it is, whatever it holds.
const $ = (id) => document.getElementById(id);

// An element with attributes (set as values) and children (nodes, or strings as text).
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) node.setAttribute(k, String(v));
  for (const c of children) if (c != null) node.append(c instanceof Node ? c : String(c));
  return node;
}
// A table row of cells: each a string/number (text) or [text, attrs].
function row(cells, attrs, cellTag = 'td') {
  return el('tr', attrs, ...cells.map((c) => Array.isArray(c) ? el(cellTag, c[1], c[0]) : el(cellTag, null, c ?? '')));
}

// mqtt: null until the server's first message says how its broker connection is.
const st = { sections: {}, seq: 0, offset: 0, mqtt: null, ws: null, live: false };
// Wall-clock time (ms since the epoch) each ply was put in the DOM, key "game:ply":
// read by the browser tests and bench/web.py to measure MQTT -> DOM latency.
window.tcecdSeen = {};
window.tcecdRecv = {}; // when the move's message reached the page (bench/web.py)
// Every standings table shown, as [name, points] rows (for the browser tests).
window.tcecdStandings = [];
// Every state the status badge took, in order (for the browser tests).
window.tcecdBadges = [];
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
    st.live = false; st.mqtt = null; renderStatus();
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
  if (!st.live) { text = st.everLive ? 'connection to tcecd web lost, reconnecting…' : 'connecting…'; cls = st.everLive ? 'down' : ''; }
  else if (!st.mqtt || (!st.mqtt.up && !st.mqtt.error)) { text = 'connecting to the broker…'; cls = ''; }
  else if (!st.mqtt.up) { text = 'broker unreachable, retrying…'; cls = 'down'; }
  else if (!ev || !ev.status) { text = 'waiting for the daemon…'; cls = ''; }
  else if (ev.status === 'online') { text = 'daemon online'; cls = 'online'; }
  else { text = `daemon offline${ev.status_ts ? ' since ' + new Date(ev.status_ts).toLocaleTimeString() : ''}`; cls = 'offline'; }
  if (st.live) st.everLive = true;
  if (window.tcecdBadges.at(-1) !== (cls || 'waiting')) window.tcecdBadges.push(cls || 'waiting');
  badge.textContent = text;
  badge.className = `badge ${cls}`;
  badge.dataset.state = cls || 'waiting';
  badge.title = st.mqtt?.error || '';
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
    const node = $(`${side}-clock`);
    if (!g) { node.textContent = '–'; node.classList.remove('running'); continue; }
    let ms = g[`${side}_clock_ms`];
    const running = !g.result && g.turn === side[0] && ms != null && g.clock_ts;
    if (running) ms -= (Date.now() - st.offset) - Date.parse(g.clock_ts);
    const text = fmtClock(ms);
    if (node.textContent !== text) node.textContent = text; // no layout or paint when unchanged
    if (node.classList.contains('running') !== Boolean(running)) node.classList.toggle('running', Boolean(running));
  }
}
setInterval(tickClocks, 100);

function moveCell(m, last) {
  const extra = m.book ? 'book' : [m.eval, m.depth != null ? `d${m.depth}${m.seldepth != null ? '/' + m.seldepth : ''}` : null].filter((x) => x != null).join(' ');
  return el('span', { class: last ? 'mv last' : 'mv', 'data-ply': m.ply, title: m.nodes != null ? `nodes ${m.nodes}` : null },
    `${m.san ?? ''} `, el('small', null, extra));
}
const moveRow = (r, label) => el('div', { class: 'row', 'data-row': r }, el('span', { class: 'no' }, label));

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
    let line = box.lastElementChild;
    if (!line || line.dataset.row !== String(r)) line = box.appendChild(moveRow(r, `${fullmove0 + r}.`));
    line.append(moveCell(moves[i], true));
  } else {
    const lines = [];
    moves.forEach((m, i) => {
      const r = rowOf(i);
      if (!lines[r]) {
        lines[r] = moveRow(r, `${fullmove0 + r}.`);
        if (i === 0 && startBlack) lines[r].append(el('span', { class: 'mv' }, '…'));
      }
      lines[r].append(moveCell(m, i === moves.length - 1));
    });
    box.replaceChildren(...lines.filter(Boolean));
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
  if (typeof m.mate === 'number') return m.mate > 0 ? 5 : -5;
  if (typeof m.cp === 'number') return Math.max(-5, Math.min(5, m.cp / 100));
  return null;
}

// The graph's elements are made once; a move changes only the lines' points.
const graph = $('graph');
function svg(tag, attrs, text) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text != null) node.textContent = text;
  return graph.appendChild(node);
}
svg('line', { x1: 0, y1: 60, x2: 400, y2: 60, stroke: '#999', 'stroke-dasharray': 3 });
const graphW = svg('polyline', { fill: 'none', stroke: '#d4a017', 'stroke-width': 2, points: '' });
const graphB = svg('polyline', { fill: 'none', stroke: '#263238', 'stroke-width': 2, points: '' });
svg('text', { x: 3, y: 12, 'font-size': 10, fill: '#666' }, '+5');
svg('text', { x: 3, y: 116, 'font-size': 10, fill: '#666' }, '−5');

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
  const uci = typeof last?.uci === 'string' ? last.uci : null;
  board.set({
    fen: g?.fen || 'start',
    lastMove: uci ? [uci.slice(0, 2), uci.slice(2, 4)] : undefined,
    turnColor: g?.turn === 'b' ? 'black' : 'white',
  });
  // The move as the PGN numbers it ("49. Rxd4", "24... Nc6"), not by ply.
  setText('info-move', last ? String(last.label ?? last.san ?? '') : '–');
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
  $('round').tBodies[0].replaceChildren(...(r ? r.games.map((g) => row([
    g.game, [g.white, { class: 'name' }], [g.black, { class: 'name' }],
    [g.result ?? (g.running ? 'playing' : ''), { class: 'result', title: g.termination }],
  ], { class: g.running ? 'playing' : null, 'data-game': g.game })) : []));
  $('bye').textContent = r?.bye ? `Bye: ${r.bye}` : '';
}

function renderStandings() {
  const s = st.sections.standings;
  const t = $('standings');
  $('standings-after').textContent = s ? (s.final ? '(final)' : `after round ${s.after_round}`) : '';
  if (!s) { t.tHead.replaceChildren(); t.tBodies[0].replaceChildren(); return; }
  t.tHead.replaceChildren(row(['#', 'Engine', 'Points', 'Games', ...s.tiebreaks, 'Strikes'], null, 'th'));
  t.tBodies[0].replaceChildren(...s.rows.map((r) => row([
    r.rank, [r.name, { class: 'name' }], [r.score, { class: 'score' }], r.games,
    ...s.tiebreaks.map((n) => r.tiebreaks[n] ?? ''), `${r.strikes}${r.disqualified ? ' DQ' : ''}`,
  ], { class: r.disqualified ? 'dq' : null, 'data-id': r.id })));
  window.tcecdStandings.push({ after_round: s.after_round, final: s.final,
    rows: [...t.tBodies[0].rows].map((tr) => [tr.cells[1].textContent, Number(tr.cells[2].textContent)]) });
}

function renderCrosstable() {
  const c = st.sections.crosstable;
  const t = $('crosstable');
  if (!c) { t.tHead.replaceChildren(); t.tBodies[0].replaceChildren(); return; }
  // Short names as column heads, the whole name on hover.
  t.tHead.replaceChildren(row(['#', 'Engine', 'Pts', ...c.players.map((p) => [p.abbr, { title: p.name }])], null, 'th'));
  t.tBodies[0].replaceChildren(...c.players.map((p) => row([
    p.rank ?? '', [p.name, { class: 'name' }], p.score ?? '',
    ...c.players.map((q) => q.name === p.name ? '×' : [(c.cells[p.name] || {})[q.name] || '', { title: `${p.name} – ${q.name}` }]),
  ])));
}

function renderEngines() {
  const e = st.sections.engines;
  const struck = e ? e.engines.filter((x) => x.strikes || x.disqualified) : [];
  const lines = struck.flatMap((x, i) => [i ? el('br') : null,
    el('span', { class: x.disqualified ? 'dq' : null },
      `${x.name}: ${x.strikes} strike(s)${x.disqualified ? ', disqualified' + (x.reason ? ' (' + x.reason + ')' : '') : ''}`)]);
  $('engines').replaceChildren(...(lines.length ? lines.filter(Boolean) : [el('span', { class: 'muted' }, 'No strikes.')]));
  $('faults').replaceChildren(...(e ? e.faults.slice().reverse().map((f) => el('li', null,
    `${f.ts ? new Date(f.ts).toLocaleTimeString() : ''} `, el('b', null, f.engine),
    ` ${f.kind ?? ''}${f.game ? ' in game ' + f.game : ''}: ${f.detail ?? ''}${f.strikes != null ? ' (strike ' + f.strikes + ')' : ''}`)) : []));
}

// A knockout cup's bracket (docs/events.md, `bracket`): one column per round, one box per
// encounter (both places: seed, name, points; who advanced marked), its games as marks
// from the upper place's side and the reason of a decision the points do not explain.
// It replaces the crosstable, which says little of a cup.
const KNOWN = (x, names) => names.includes(x) ? x : '';
function renderBracket() {
  const b = st.sections.bracket;
  $('bracket-panel').hidden = !b;
  $('crosstable-panel').hidden = Boolean(b);
  if (!b) { $('bracket').replaceChildren(); setText('bracket-info', ''); return; }
  const tb = b.tiebreak_time_control || b.tiebreak_max_games
    ? `tiebreak ${b.tiebreak_time_control ?? ''}${b.tiebreak_max_games ? ` (at most ${b.tiebreak_max_games} games)` : ''}` : null;
  const info = [b.players != null ? `${b.players} engines` : null,
    b.games != null ? `${b.games} game${b.games === 1 ? '' : 's'} an encounter` : null, tb,
    b.champion ? `champion: ${b.champion}` : null].filter(Boolean).join(' · ');
  setText('bracket-info', info ? `(${info})` : '');
  const place = (p) => el('div', { class: ['place', p.won && 'won', p.lost && 'lost', p.disqualified && 'dq'].filter(Boolean).join(' ') },
    el('span', { class: 'seed' }, p.seed ?? ''), el('span', { class: 'name' }, p.name), el('span', { class: 'score' }, p.score));
  $('bracket').replaceChildren(...b.rounds.map((r) => el('div', { class: `bround ${KNOWN(r.status, ['waiting', 'playing', 'finished'])}`, 'data-round': r.round },
    el('h3', null, r.name, el('small', null, ` ${r.status}`)),
    ...r.encounters.map((e) => el('div', { class: `enc ${KNOWN(e.status, ['bye', 'waiting', 'playing', 'decided'])}`, 'data-encounter': e.encounter },
      place(e.places[0]), place(e.places[1]),
      el('div', { class: 'marks' }, e.marks || ''),
      e.note ? el('div', { class: 'note' }, e.note) : null)))));
}

// The forecast (docs/events.md, `forecast`): one row per engine in order of expected place.
const pct = (p) => typeof p === 'number' ? `${(100 * p).toFixed(1)}%` : '';
const fixed = (v, n) => typeof v === 'number' ? v.toFixed(n) : '';
function renderForecast() {
  const f = st.sections.forecast;
  const box = $('forecast');
  const players = f && Array.isArray(f.players) ? f.players : [];
  if (!players.length) { box.replaceChildren(el('p', { class: 'muted' }, 'No forecast published.')); return; }
  const places = Math.min(3, players.length);
  const ord = ['1st', '2nd', '3rd'];
  const head = row(['Engine', 'Points', 'Expected', 'Exp. place', f.top ? `Top ${f.top}` : 'Top',
    ...ord.slice(0, places).map((o) => `P(${o})`)], null, 'th');
  const body = players.map((p) => row([[p.name, { class: 'name' }], p.score ?? '',
    fixed(p.expected_score, 2), fixed(p.expected_place, 2), pct(p.top),
    ...[...Array(places).keys()].map((i) => pct((p.places || [])[i]))]));
  const note = [f.after_round != null ? `after round ${f.after_round}` : null,
    f.after_game ? `game ${f.after_game}` : null,
    f.simulations != null ? `${f.simulations} simulation${f.simulations === 1 ? '' : 's'}` : null].filter(Boolean).join(', ');
  box.replaceChildren(el('table', { class: 'grid' }, el('thead', null, head), el('tbody', null, ...body)),
    el('p', { class: 'muted' }, note));
}

// The kibitzers' lines, beside the players' (their latest reports on the game shown).
function renderKibitzers() {
  // Every value as text (el() sets text nodes and attributes, never markup).
  const ks = st.sections.kibitzers || [];
  $('kibitzers').replaceChildren(...ks.map((k) => {
    const depth = k.depth != null ? `d ${k.depth}${k.seldepth != null ? '/' + k.seldepth : ''}` : null;
    const stats = [depth, k.nodes != null && `${fmtNum(k.nodes)} nodes`, k.nps != null && `${fmtNum(k.nps)}nps`,
      k.tbhits && `tb ${fmtNum(k.tbhits)}`, k.wdl && `wdl ${k.wdl.join(' ')}`].filter(Boolean).join(' · ');
    return el('div', { class: 'kibitzer', 'data-n': String(k.n) },
      el('span', { class: 'name', title: k.desc ?? '' }, String(k.engine ?? '')), ' ',
      el('b', { class: 'eval' }, String(k.eval ?? '–')), ' ', el('small', null, stats),
      el('div', { class: 'pv' }, String(k.pv || '–')));
  }));
}

// The operator's console (docs/running.md): its state and the latest commands.
function renderConsole() {
  const c = st.sections.console;
  $('console-panel').hidden = !c;
  if (!c) return;
  const parts = [c.paused ? 'PAUSED' : 'running',
    c.concurrency != null ? `concurrency ${c.concurrency}` : null,
    ...(c.withdrawn || []).map((w) => `${w.engine} withdrawn (round ${w.round ?? '?'}: ${w.reason ?? ''})`),
    ...(c.replaced || []).map((r) => `${r.engine} replaced by ${r.command}`)].filter(Boolean);
  setText('console-state', parts.join(' · '));
  $('audit').querySelector('tbody').replaceChildren(...(c.audit || []).map((a) => row([
    String(a.seq ?? ''), String(a.received ?? ''), String(a.command ?? ''), String(a.args ?? ''),
    [a.ok ? `ok ${a.note ?? ''}` : `refused: ${a.note ?? ''}`, { class: a.ok ? '' : 'refused' }]])));
}

const RENDER = {
  event: renderEvent, game: () => renderGame(false), round: renderRound, standings: renderStandings,
  bracket: renderBracket, crosstable: renderCrosstable, engines: renderEngines, forecast: renderForecast,
  kibitzers: renderKibitzers, console: renderConsole,
};

connect();
