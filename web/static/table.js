// The overview for a shared screen: the public state only (it holds no seat and sends nothing).
import { coalesced, connect, el, PublicMirror } from "./net.js";
import { drawMasterPlan, drawThePlan, words } from "./draw.js";

const mirror = new PublicMirror();
let socketUp = false;
const redraw = coalesced(() => render());
connect("/ws/table", (msg) => { if (mirror.apply(msg)) redraw(); }, (up) => { socketUp = up; render(); });

function summary(state) {
  if (mirror.game === "theplan") {
    return `Round ${state.round}, turn ${state.turn} - ${words(state.step || state.phase)}` +
      ((state.to_act || []).length ? `: waiting for ${state.to_act.join(", ")}` : "");
  }
  if (state.game_over) return state.winner ? `Game over: ${state.winner} won` : "Game over";
  const w = state.waiting;
  return `Turn ${state.turn}: ${w ? w.player : state.current} - ${w ? words(w.for) : state.step + " step"}` +
    ` · deck ${state.deck_size}${state.sudden_death ? " · SUDDEN DEATH" : ""}`;
}

function render() {
  const state = mirror.state;
  const body = [el("header", {}, el("h1", {}, "The table"), state ? el("p", { class: "turn" }, summary(state)) : null)];
  if (!socketUp) body.push(el("p", { class: "banner" }, "Reconnecting..."));
  else if (!mirror.up) body.push(el("p", { class: "banner" }, mirror.status));
  if (state) {
    if (mirror.game === "theplan") body.push(el("div", { class: "board wide" }, drawThePlan(state)));
    else {
      const jumps = Object.fromEntries((state.moves || []).filter((m) => m.allowed !== false).map((m) => [m.to, m]));
      body.push(el("div", { class: "board wide" }, drawMasterPlan(state, { jumps })));
      body.push(el("ul", { class: "players" }, ...(state.players || []).map((p) =>
        el("li", { class: p.name === state.current ? "current" : "" },
          `${p.name} (${p.villain}) on ${p.position || "-"}, ${p.hand_size} cards${p.eliminated ? ", out" : ""}`))));
    }
  }
  body.push(el("section", { class: "log" }, el("h2", {}, "Last events"),
    el("ol", {}, ...mirror.events.slice(-10).map((e) => el("li", {}, e.words)))));
  document.body.dataset.seq = String(mirror.seq);
  // When each seq first reached the page's DOM (wall-clock ms), read by bench.web.
  (window.seqShown ||= {})[mirror.seq] ??= performance.timeOrigin + performance.now();
  document.getElementById("app").replaceChildren(...body);
}
render();
