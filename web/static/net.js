// The page's line to the gateway: one WebSocket that comes back by itself (a phone that slept,
// a network that dropped), where the gateway sends a fresh snapshot. Close code 4403 means the
// link itself was refused: no point in trying again. Each frame is a JSON array of messages
// (what waited at the gateway); onMessage gets them one by one.
export const REFUSED = 4403;

export function connect(path, onMessage, onSocket) {
  let ws = null;
  let delay = 300;
  let timer = null;
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  const open = () => {
    timer = null;
    ws = new WebSocket(url);
    ws.onopen = () => { delay = 300; onSocket(true, 0); };
    ws.onmessage = (e) => {
      let batch;
      try { batch = JSON.parse(e.data); } catch { return; }
      for (const msg of Array.isArray(batch) ? batch : [batch]) onMessage(msg);
    };
    ws.onclose = (e) => {
      onSocket(false, e.code);
      if (e.code === REFUSED) return;
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 4000);
    };
  };
  // A phone waking up: try at once rather than after the back-off.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && timer !== null) { clearTimeout(timer); open(); }
  });
  open();
  return {
    send(obj) {
      if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return true; }
      return false;
    },
  };
}

// fn, run once after whatever else this task does: a frame of many messages is drawn once, not
// once per message (each redraw rebuilds the page).
export function coalesced(fn) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; fn(); });
  };
}

// A tiny element builder: el("div", {class: "x", onclick: f}, "text", child, ...).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// What a page keeps of the public feed: the latest state and the last events in words. Its seq
// is the last the page has seen of either: a snapshot taken between a command's events and the
// state after them holds the state before them and the events already in `recent`, and the
// page gets neither those events again nor any other message that would count them.
export class PublicMirror {
  constructor() { this.seq = -1; this.game = ""; this.state = null; this.events = []; this.up = false; this.status = "connecting"; }
  apply(msg) {
    if (msg.kind === "snapshot") {
      this.seq = Math.max(msg.seq, ...msg.recent.map((r) => r.seq)); this.game = msg.game; this.state = msg.state;
      this.events = msg.recent.filter((r) => !r.quiet).slice(-20);
    } else if (msg.kind === "event") {
      if (msg.seq <= this.seq) return false;
      this.seq = msg.seq;
      if (!msg.quiet) this.events = [...this.events, msg].slice(-20);
    } else if (msg.kind === "state") {
      this.seq = Math.max(this.seq, msg.seq); this.state = msg.state;
    } else if (msg.kind === "status") {
      this.up = msg.up; this.status = msg.message;
    } else return false;
    return true;
  }
}
