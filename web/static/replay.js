// A stored game, step by step: a slider over its public events, the table as it stood after each.
import { el } from "./net.js";
import { drawMasterPlan, drawThePlan } from "./draw.js";

const root = document.getElementById("app");
let data = null;
let at = 0;

fetch("/replay.json").then((r) => r.json()).then((d) => {
  data = d;
  at = Math.max(0, (d.steps || []).length - 1);
  render();
}).catch(() => root.replaceChildren(el("p", { class: "banner" }, "could not load the replay")));

function render() {
  const steps = data.steps || [];
  if (!steps.length) return root.replaceChildren(el("p", { class: "banner" }, data.error || "this game has no steps"));
  const step = steps[at];
  const slider = el("input", { type: "range", min: 0, max: steps.length - 1, value: at, id: "step", "aria-label": "step" });
  slider.addEventListener("input", () => { at = Number(slider.value); render(); });
  const board = data.game === "theplan" ? drawThePlan(step.state) : drawMasterPlan(step.state, {});
  const recent = steps.slice(Math.max(0, at - 9), at + 1).filter((s) => s.event.type !== "command_accepted");
  root.replaceChildren(
    el("header", {}, el("h1", {}, "Replay"), el("p", { class: "turn" }, `Event ${step.seq} of ${steps[steps.length - 1].seq}: ${step.words}`)),
    el("div", { class: "controls" },
      el("button", { onclick: () => { at = Math.max(0, at - 1); render(); } }, "<"), slider,
      el("button", { onclick: () => { at = Math.min(steps.length - 1, at + 1); render(); } }, ">")),
    el("div", { class: "board wide" }, board),
    el("section", { class: "log" }, el("h2", {}, "Up to here"), el("ol", {}, ...recent.map((s) => el("li", {}, s.words)))),
  );
  document.body.dataset.step = String(step.seq);
}
