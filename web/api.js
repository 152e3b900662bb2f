// The server's API (docs/api.md), the seat tokens this browser holds, and the
// game's WebSocket with automatic reconnection.

export class ApiError extends Error {
  /** `body`: the server's error answer; its `code` names a refusal, the rest are its parameters. */
  constructor(status, message, body = null) {
    super(message);
    this.status = status;
    this.code = (body && body.code) || null;
    this.params = body || {};
  }
}

/** A JSON request; throws ApiError with the server's message on failure. */
export async function request(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, 'network');
  }
  const text = await response.text();
  let value = null;
  try {
    value = text ? JSON.parse(text) : null;
  } catch (e) {
    value = null;
  }
  if (!response.ok) throw new ApiError(response.status, (value && value.error) || response.statusText, value);
  return value;
}

// ---- seats: the tokens of the seats this browser holds, per game ----

const SEATS_KEY = 'monte.seats';

function loadSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY) || '{}') || {};
  } catch (e) {
    return {};
  }
}

/** `{ white?: token, black?: token }` for a game. */
export function seatsOf(id) {
  return loadSeats()[id] || {};
}

export function saveSeat(id, side, token) {
  const all = loadSeats();
  all[id] = { ...(all[id] || {}), [side]: token, at: Date.now() };
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

/** Every token held, newest games first (at most `limit`). */
export function allTokens(limit = 100) {
  const all = loadSeats();
  return Object.values(all)
    .sort((a, b) => (b.at || 0) - (a.at || 0))
    .flatMap((seat) => [seat.white, seat.black].filter(Boolean))
    .slice(0, limit);
}

export function playerName() {
  return localStorage.getItem('monte.name') || '';
}

export function setPlayerName(name) {
  localStorage.setItem('monte.name', name);
}

// ---- live updates ----

/** The WebSocket address of one of this server's paths. */
export function socketUrl(path) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${path}`;
}

/** A socket's message read as JSON, or null. */
export function readMessage(event) {
  try {
    return JSON.parse(event.data);
  } catch (e) {
    return null;
  }
}

/**
 * The game after a pushed `update` (docs/api.md): the game now, and the
 * move list cut to `keep` moves and `add` appended. `game` is not changed.
 */
export function applyUpdate(game, message) {
  const { keep, add } = message.history;
  return { ...message.game, history: game.history.slice(0, keep).concat(add) };
}

/**
 * Follows a game over its WebSocket: `onState(view, event)` for every
 * state (`event`: what an update says came with it, such as a declined
 * draw offer, or null), `onStatus('open' | 'closed')` when the connection
 * changes. The server
 * sends the complete game on connecting, then updates to apply to it.
 * Reconnects by itself after a drop (backing off up to 5 s) and when the
 * page comes back into view. Returns `close()`.
 */
export function follow(id, onState, onStatus) {
  let socket = null;
  let closed = false;
  let attempt = 0;
  let timer = null;
  let pinger = null;
  // The game as this socket has brought it (updates apply to it).
  let game = null;

  const connect = () => {
    if (closed) return;
    clearTimeout(timer);
    const ws = new WebSocket(socketUrl(`/api/games/${encodeURIComponent(id)}/ws`));
    socket = ws;
    game = null;
    ws.onopen = () => {
      attempt = 0;
      onStatus('open');
      clearInterval(pinger);
      // Keeps idle connections alive through proxies.
      pinger = setInterval(() => ws.readyState === 1 && ws.send('{"type":"ping"}'), 25000);
    };
    ws.onmessage = (event) => {
      const message = readMessage(event);
      if (!message) return;
      if (message.type === 'state' && message.game) {
        game = message.game;
        onState(game, null);
      } else if (message.type === 'update' && message.game && message.history) {
        if (!game || message.game.version !== game.version + 1) {
          // Does not follow what we have (the server sees to it that this
          // does not happen): start again from a complete state.
          game = null;
          connect();
          ws.close();
          return;
        }
        game = applyUpdate(game, message);
        onState(game, message.event || null);
      }
    };
    ws.onclose = () => {
      clearInterval(pinger);
      if (socket !== ws || closed) return;
      onStatus('closed');
      attempt += 1;
      const delay = Math.min(5000, 250 * 2 ** Math.min(attempt, 5)) * (0.75 + Math.random() / 2);
      timer = setTimeout(connect, delay);
    };
    ws.onerror = () => ws.close();
  };

  const wake = () => {
    if (document.visibilityState === 'visible' && socket && socket.readyState > 1) {
      attempt = 0;
      connect();
    }
  };
  document.addEventListener('visibilitychange', wake);
  window.addEventListener('online', wake);
  connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(pinger);
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('online', wake);
      if (socket) socket.close();
    },
    /** Reconnect now (after a failed request that suggests the server is back). */
    poke() {
      if (socket && socket.readyState > 1) {
        attempt = 0;
        connect();
      }
    },
  };
}
