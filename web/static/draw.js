// Pictures of the public state: Master Plan's table as SVG in table millimetres (the contestant
// edge at the bottom, +y toward the Trophy going up), The Plan's museum as HTML.
import { el } from "./net.js";

const NS = "http://www.w3.org/2000/svg";
const MARGIN = 30; // mm around the cards

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function centre(corners) {
  const n = corners.length;
  return [corners.reduce((s, c) => s + c[0], 0) / n, corners.reduce((s, c) => s + c[1], 0) / n];
}

function spaceLabel(space) {
  if (space.kind === "trophy") return "Trophy";
  if (space.kind === "start") return `${space.owner}'s start`;
  return space.space;
}

// opts: jumps {space: move}, onSpace(space), onTable(x, y), ghosts [[label, [[x,y]x4]]] (where
// cards are being reported: a Switch's or Control Panel's new places, tapped so far)
export function drawMasterPlan(state, opts = {}) {
  const table = state.table || [];
  const xs = table.flatMap((s) => s.corners.map((c) => c[0]));
  const ys = table.flatMap((s) => s.corners.map((c) => c[1]));
  const minX = Math.min(0, ...xs) - MARGIN, maxX = Math.max(...xs, 100) + MARGIN;
  const minY = Math.min(0, ...ys) - MARGIN, maxY = Math.max(...ys, 100) + MARGIN;
  const flip = (x, y) => [x, maxY + minY - y];
  const root = svg("svg", { viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`, class: "table", role: "img",
    "aria-label": "the table" });
  root.append(svg("rect", { x: minX, y: minY, width: maxX - minX, height: maxY - minY, class: "felt" }));
  const jumps = opts.jumps || {};
  for (const space of table) {
    const pts = space.corners.map((c) => flip(c[0], c[1]).join(",")).join(" ");
    const jump = jumps[space.space];
    const cls = ["space", `kind-${space.kind}`, space.face_up ? "up" : "down",
      jump ? `jump verdict-${jump.verdict}` : ""].join(" ");
    const g = svg("g", { class: cls, "data-space": space.space });
    g.append(svg("polygon", { points: pts }));
    const [cx, cy] = flip(...centre(space.corners));
    g.append(svg("text", { x: cx, y: cy - 22, class: "label" }, spaceLabel(space)));
    if (space.face_up && space.name) g.append(svg("text", { x: cx, y: cy - 10, class: "name" }, space.name));
    if (jump) g.append(svg("text", { x: cx, y: cy + 26, class: "gap" }, `${Number(jump.gap_mm).toFixed(1)} mm`));
    (space.pawns || []).forEach((p, i) => {
      const px = cx - 12 * (space.pawns.length - 1) + 24 * i;
      g.append(svg("circle", { cx: px, cy: cy + 8, r: 10, class: "pawn" }));
      g.append(svg("text", { x: px, y: cy + 12, class: "pawn-name" }, p.slice(0, 2)));
    });
    root.append(g);
  }
  for (const [label, corners] of opts.ghosts || []) {
    const pts = corners.map((c) => flip(c[0], c[1]).join(",")).join(" ");
    const [cx, cy] = flip(...centre(corners));
    const g = svg("g", { class: "ghost", "data-ghost": label });
    g.append(svg("polygon", { points: pts }), svg("text", { x: cx, y: cy, class: "label" }, `${label} now`));
    root.append(g);
  }
  root.addEventListener("click", (e) => {
    const g = e.target.closest("[data-space]");
    if (g && opts.onSpace && jumps[g.dataset.space]) { opts.onSpace(g.dataset.space); return; }
    if (!opts.onTable) return;
    const p = root.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    const q = p.matrixTransform(root.getScreenCTM().inverse());
    const [x, y] = flip(q.x, q.y);
    opts.onTable(Math.round(x * 10) / 10, Math.round(y * 10) / 10);
  });
  return root;
}

export const COLOURS = {
  jewels: "#d33", sculptures: "#888", natural_history: "#3a3", paintings: "#93c", egyptian_artifacts: "#db2",
  fossils: "#a62", lunar_objects: "#38d", documents: "#eee", pottery: "#c85", toys: "#e7c",
};
export const words = (id) => String(id).replaceAll("_", " ");
export function kindOf(item) { return String(item).split("-")[0]; }

export function chip(item) {
  return el("span", { class: "chip", style: `--c:${COLOURS[kindOf(item)] || "#999"}`, "data-item": item }, words(item));
}

// The Plan: what lies face up, each player's haul and score, the Plans turned up this turn.
export function drawThePlan(state) {
  const faceUp = state.face_up || { treasures: [], trinkets: [] };
  const players = state.players || {};
  const revealed = state.plans_revealed || {};
  const faces = state.plan_faces || {};
  return el("div", { class: "museum" },
    el("h3", {}, "Face up"),
    el("div", { class: "chips" }, ...faceUp.treasures.map(chip), ...faceUp.trinkets.map(chip)),
    el("table", { class: "players" },
      el("tr", {}, el("th", {}, "player"), el("th", {}, "score"), el("th", {}, "haul"), el("th", {}, "Plan")),
      ...Object.entries(players).map(([name, p]) => el("tr", { "data-player": name },
        el("td", {}, name, (state.to_act || []).includes(name) ? " (to act)" : ""),
        el("td", {}, String(p.score ? p.score.score : 0)),
        el("td", { class: "chips" }, ...(p.treasures || []).map(chip), ...(p.trinkets || []).map(chip)),
        el("td", {}, revealed[name] ? planWords(revealed[name], faces) : p.committed ? "committed" : "")))),
    state.result ? el("p", { class: "result" }, `Game over: ${(state.result.winners || []).join(" and ")} won`) : null);
}

export function planWords(plan, faces) {
  const face = faces[plan];
  if (!face) return words(plan);
  return `${face.type}${face.experts.length ? ": " + face.experts.map(words).join(", ") : ""}`;
}
