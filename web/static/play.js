// A seat's page: the hand, the table, whose turn and which step, and the commands the referee
// says this seat may send now (its "you_can"), as buttons and as cards to tap.
import { coalesced, connect, el, PublicMirror, REFUSED } from "./net.js";
import { drawMasterPlan, drawThePlan, planWords, words, chip, centre, COLOURS } from "./draw.js";

const token = decodeURIComponent(location.pathname.split("/").pop());
const mirror = new PublicMirror();
const CARD_W = 63, CARD_H = 88; // a poker card, in mm, for a placement tapped on the table
let view = null, seat = "", refused = null, socketUp = false, lastError = "", pending = 0;
let selected = null; // Master Plan: the hand card chosen for placing (its number), or a jump's choices
let reported = {}; // Master Plan: new places tapped so far for a Switch (two) or Control Panel (one)
// The Plan's steward (physical table): what is picked so far, and for which reveal or report.
let picked = { at: "", treasures: [], trinkets: [], plans: {} };
let texts = {};
let counter = 0;

fetch("/cards.json").then((r) => r.json()).then((t) => { texts = t; render(); }).catch(() => {});

const redraw = coalesced(() => render());
const line = connect(`/ws/play/${encodeURIComponent(token)}`, (msg) => {
  if (mirror.apply(msg)) return redraw();
  if (msg.kind === "view") { view = msg.view; seat = msg.seat; }
  else if (msg.kind === "reply") { pending = Math.max(0, pending - 1); lastError = msg.ok ? "" : msg.error.message; }
  else if (msg.kind === "error") { pending = Math.max(0, pending - 1); lastError = msg.message; }
  else if (msg.kind === "refused") refused = msg.message;
  redraw();
}, (up, code) => { socketUp = up; if (code === REFUSED && !refused) refused = "this seat link does not work"; render(); });

function send(command) {
  const { player, ...fields } = command; // the seat is the link's; the gateway's connection adds it
  if (!line.send({ id: `p${++counter}`, command: fields })) { lastError = "not connected; trying again"; return render(); }
  pending += 1; lastError = ""; selected = null;
  render();
}

const STEP_WORDS = { move: "Move", add: "Add", draw: "Draw", peek: "Peek" };

function label(c) {
  switch (c.type) {
    case "skip_step": return `End the ${STEP_WORDS[(mirror.state || {}).step] || ""} step`.replace("  ", " ");
    case "draw": return c.space ? `Take ${c.space} from the table` : "Draw a card (ends your turn)";
    case "move": return `Jump to ${c.to}${c.flip === false ? " without turning it up" : ""}`;
    case "choose_target": return `Choose ${c.spaces.join(" and ")}`;
    case "confirm_measurement": return c.legal ? "Measured: within reach" : "Measured: out of reach";
    case "send_minion": return `Send the minion to ${c.to}`;
    case "play_card": return `Play ${cardName(c.card)} from your hand`;
    case "peek": return `Peek at ${c.space}`;
    case "report_identity": return `It is ${c.name}`;
    case "report_positions": return `Each lies where the other was (${Object.keys(c.positions).join(" and ")} swapped)`;
    case "commit_plan": return `Commit ${planWords(c.plan, (view || {}).plan_faces || {})} face down`;
    case "withdraw_plan": return "Take back your Plan";
    case "choose_colour": return `Take every ${words(c.colour)}`;
    case "claim_trinket":
      if (!c.blind) return `Take ${words(c.trinket)}`;
      return c.trinket ? `Drew ${words(c.trinket)} from the pile` : "Take a trinket blind from the pile";
    case "pass_plans": return `Pass ${c.plans.map((p) => planWords(p, (view || {}).plan_faces || {})).join(" + ")}`;
    case "bid": return c.trinkets.length ? `Bid ${c.trinkets.map(words).join(", ")}` : "Bid nothing";
    case "choose_contest_order": return `Settle ${words(c.colour)} first`;
    default: return c.type.replaceAll("_", " ");
  }
}

function cardName(number) {
  const card = ((view || {}).hand || []).find((h) => typeof h === "object" && h.card === number);
  return card ? card.name : `card ${number}`;
}

function header(state) {
  if (!state) return el("p", {}, "waiting for the table...");
  if (mirror.game === "theplan") {
    const acting = state.to_act || [];
    const you = acting.includes(seat);
    return el("p", { class: you ? "turn yours" : "turn" },
      `Round ${state.round}, turn ${state.turn} - ${words(state.step || state.phase)}: `,
      you ? "your move" : acting.length ? `waiting for ${acting.join(", ")}` : "");
  }
  if (state.game_over) return el("p", { class: "turn" }, state.winner ? `Game over: ${state.winner} won` : "Game over");
  const waiting = state.waiting;
  const who = waiting ? waiting.player : state.current;
  const step = waiting ? words(waiting.for) : `${STEP_WORDS[state.step] || state.step} step`;
  return el("p", { class: who === seat ? "turn yours" : "turn" }, `Turn ${state.turn}: `,
    who === seat ? `your turn - ${step}` : `${who}'s turn - ${step}`);
}

function masterPlan(state, options) {
  const jumps = {};
  for (const m of view.legal_moves || []) if (m.allowed !== false) jumps[m.to] = m;
  const moveOptions = options.filter((c) => c.type === "move");
  const canPlace = state.current === seat && state.step === "add" && !state.waiting && !state.game_over;
  const reporting = state.waiting && state.waiting.player === seat && state.waiting.for === "report_positions";
  const tapOptions = {
    jumps: Object.fromEntries(Object.entries(jumps).filter(([s]) => moveOptions.some((c) => c.to === s))),
    onSpace(space) {
      const choices = moveOptions.filter((c) => c.to === space);
      if (choices.length === 1) send(choices[0]);
      else { selected = { space, choices }; render(); }
    },
  };
  if (canPlace && typeof selected === "number") {
    tapOptions.onTable = (x, y) => send({ type: "place_card", card: selected, corners: cardAt(x, y) });
  } else if (reporting) {
    tapOptions.onTable = (x, y) => reportAt(state, x, y);
    tapOptions.ghosts = Object.entries(reported);
  }
  if (!reporting) reported = {};
  const parts = [el("div", { class: "board" }, drawMasterPlan(state, tapOptions))];
  if (reporting) parts.push(...reportHint(state.waiting));
  if (Object.keys(tapOptions.jumps).length) {
    parts.push(el("ul", { class: "jumps" }, ...Object.values(tapOptions.jumps).map((m) =>
      el("li", { class: `verdict-${m.verdict}` }, `${m.to}: ${Number(m.gap_mm).toFixed(1)} mm, ${words(m.verdict)}`,
        m.needs_measurement ? " - you will measure it with a card" : ""))));
  }
  if (selected && selected.choices) {
    parts.push(el("div", { class: "actions" }, ...selected.choices.map((c) => el("button", { onclick: () => send(c) }, label(c)))));
  }
  const hand = (view.hand || []).filter((h) => typeof h === "object");
  parts.push(el("h2", {}, `Your hand (${hand.length})`));
  if (canPlace && hand.length) parts.push(el("p", { class: "hint" },
    typeof selected === "number" ? `Now tap the table where ${cardName(selected)} goes (face down).` : "Add step: tap a card, then tap the table to place it."));
  parts.push(el("div", { class: "hand" }, ...hand.map((h) => el("button", {
    class: `card ${selected === h.card ? "selected" : ""}`, "data-card": h.card, disabled: !canPlace,
    onclick: () => { selected = selected === h.card ? null : h.card; render(); },
  }, el("strong", {}, h.name), el("span", {}, texts[h.name] || "")))));
  const known = Object.entries(view.known_face_down || {});
  if (known.length) parts.push(el("p", {}, "Face-down cards you know: ", known.map(([s, n]) => `${s} ${n}`).join(", ")));
  parts.push(actions(options.filter((c) => c.type !== "move")));
  return parts;
}

// A Switch (two spaces) or a Control Panel (one) was carried out on the table: the player taps
// where each card lies now, one after the other, and the report goes once every card is tapped.
function reportAt(state, x, y) {
  const spaces = state.waiting.spaces;
  const next = spaces.find((s) => !reported[s]);
  reported = { ...reported, [next]: movedTo(state, next, x, y) };
  if (spaces.some((s) => !reported[s])) return render();
  const positions = reported;
  reported = {}; // a refused report (cards not swapped, overlapping) is tapped again from the start
  send({ type: "report_positions", positions });
}

function reportHint(waiting) {
  const next = waiting.spaces.find((s) => !reported[s]);
  const swap = waiting.spaces.length === 2;
  const text = swap
    ? `${waiting.card_name || "Switch"}: ${waiting.spaces.join(" and ")} swap places. Tap where ${next} lies now` +
      ` (${waiting.spaces.indexOf(next) + 1} of 2).`
    : `Tap where ${next} lies now.`;
  const out = [el("p", { class: "hint" }, text)];
  if (Object.keys(reported).length) {
    out.push(el("div", { class: "actions" }, el("button", { "data-type": "retap", onclick: () => { reported = {}; render(); } },
      "Tap again from the first card")));
  }
  return out;
}

// The space's own outline moved so its centre is at (x, y): the card keeps its size and turn.
function movedTo(state, space, x, y) {
  const card = (state.table || []).find((s) => s.space === space);
  if (!card) return cardAt(x, y);
  const [cx, cy] = centre(card.corners);
  return card.corners.map(([px, py]) => [round1(px - cx + x), round1(py - cy + y)]);
}

const round1 = (v) => Math.round(v * 10) / 10;

function cardAt(x, y) {
  return [[x - CARD_W / 2, y - CARD_H / 2], [x + CARD_W / 2, y - CARD_H / 2], [x + CARD_W / 2, y + CARD_H / 2], [x - CARD_W / 2, y + CARD_H / 2]];
}

function thePlan(state, options) {
  const you = view.you || {};
  const faces = view.plan_faces || {};
  const commits = Object.fromEntries(options.filter((c) => c.type === "commit_plan").map((c) => [c.plan, c]));
  const parts = [el("div", { class: "board" }, drawThePlan(state))];
  parts.push(el("h2", {}, "Your Plans"));
  if (state.mode === "physical") parts.push(el("p", { class: "hint" }, "At this table your Plans are the cards in your hand: lay one face down; the steward reports it."));
  if (you.committed_plan) parts.push(el("p", { class: "committed" }, `Committed face down: ${planWords(you.committed_plan, faces)}`));
  parts.push(el("div", { class: "hand" }, ...(you.hand || []).map((plan) => {
    const face = faces[plan] || { type: plan, experts: [] };
    return el("div", { class: "card plan", "data-plan": plan },
      el("strong", {}, face.type), el("span", { class: "chips" }, ...face.experts.map(chip)),
      commits[plan] ? el("button", { onclick: () => send(commits[plan]) },
        you.committed_plan ? "Commit this instead" : "Commit face down") : null);
  })));
  if (you.bid) parts.push(el("p", {}, `Your bid: ${you.bid.map ? you.bid.map(words).join(", ") || "nothing" : you.bid}`));
  parts.push(actions(options.filter((c) => c.type !== "commit_plan")));
  return parts;
}

// The steward of a physical table reports what the players turned over and revealed: the
// referee's view says what may be reported now (view.report), the page offers it as the
// faces printed on the pieces, and sends report_reveal / report_plan.
function steward(state) {
  const report = view.report || {};
  const at = `${state.turn_number}-${state.phase}`;
  if (picked.at !== at) picked = { at, treasures: [], trinkets: [], plans: {} };
  const parts = [el("div", { class: "board" }, drawThePlan(state))];
  if (report.treasures) parts.push(...revealPicker(report));
  else if (report.seats) parts.push(...planReporter(report, view.plan_faces || {}));
  else parts.push(el("p", { class: "hint" }, "Nothing to report now: the players are choosing."));
  return parts;
}

function faceWords(face) {
  return `${words(face.kind)} ${face.value}${face.design ? ` (${words(face.design)})` : ""}`;
}

// The pieces still face down, one button per printed face (copies counted); a tap turns one over.
function revealPicker(report) {
  const section = (what, title) => {
    const items = report[what], wanted = report[`${what}_wanted`], chosen = picked[what];
    const groups = new Map();
    for (const [id, face] of Object.entries(items)) {
      const key = faceWords(face);
      if (!groups.has(key)) groups.set(key, { face, ids: [] });
      groups.get(key).ids.push(id);
    }
    const full = chosen.length >= wanted;
    return el("section", { class: `reveal ${what}` },
      el("h2", {}, `${title}: ${chosen.length} of ${wanted}`),
      el("div", { class: "chips turned" }, ...chosen.map((id) => el("button", {
        class: "chip", style: `--c:${COLOURS[items[id].kind] || "#999"}`, "data-picked": id, title: "put back",
        onclick: () => { picked[what] = chosen.filter((x) => x !== id); render(); },
      }, `${faceWords(items[id])} ×`))),
      el("div", { class: "chips pile" }, ...[...groups.entries()].map(([key, { face, ids }]) => {
        const left = ids.filter((id) => !chosen.includes(id));
        return el("button", {
          class: "chip", style: `--c:${COLOURS[face.kind] || "#999"}`, "data-face": key, disabled: full || !left.length,
          onclick: () => { picked[what] = [...chosen, left[0]]; render(); },
        }, key, ids.length > 1 ? ` (${left.length})` : "");
      })));
  };
  const ready = picked.treasures.length === report.treasures_wanted && picked.trinkets.length === report.trinkets_wanted;
  return [
    el("p", { class: "hint" }, "Tap what was turned over this turn; tap it again above to put it back."),
    section("treasures", "Treasures turned over"),
    section("trinkets", "Trinkets turned over"),
    el("div", { class: "actions" }, el("button", { "data-type": "report_reveal", disabled: !ready,
      onclick: () => send({ type: "report_reveal", treasures: picked.treasures, trinkets: picked.trinkets }) },
      "Report what was turned over")),
  ];
}

// Each seat that revealed a Plan: pick its face from the Plans not seen yet, and report it.
function planReporter(report, faces) {
  const byFace = new Map(); // one entry per printed face: Plans alike are the same to report
  for (const plan of report.plans) {
    const key = planWords(plan, faces);
    if (!byFace.has(key)) byFace.set(key, plan);
  }
  const rows = report.seats.map((who) => {
    const choice = picked.plans[who] || "";
    const select = el("select", { "data-seat": who, "aria-label": `${who}'s Plan` },
      el("option", { value: "" }, "which Plan?"),
      ...[...byFace.entries()].map(([key, plan]) => el("option", { value: plan, selected: plan === choice }, key)));
    select.addEventListener("change", () => { picked.plans[who] = select.value; render(); });
    return el("div", { class: "report-plan" }, el("strong", {}, who), select,
      el("button", { "data-type": "report_plan", "data-seat": who, disabled: !choice,
        onclick: () => send({ type: "report_plan", seat: who, plan: choice }) }, `Report ${who}'s Plan`));
  });
  return [el("h2", {}, "Plans revealed"), el("p", { class: "hint" }, "Pick the Plan each player turned up."), ...rows];
}

function actions(options) {
  if (!options.length) return el("div", { class: "actions" });
  return el("section", {}, el("h2", {}, "You can"), el("div", { class: "actions" },
    ...options.map((c) => el("button", { "data-type": c.type, onclick: () => send(c) }, label(c)))));
}

function render() {
  const root = document.getElementById("app");
  const state = mirror.state;
  const body = [];
  body.push(el("header", {}, el("h1", {}, seat || "Your seat"), header(state)));
  if (refused) {
    body.push(el("p", { class: "banner refused" }, refused));
    root.replaceChildren(...body);
    return;
  }
  if (!socketUp) body.push(el("p", { class: "banner" }, "Reconnecting..."));
  else if (!mirror.up) body.push(el("p", { class: "banner" }, mirror.status));
  if (lastError) body.push(el("p", { class: "banner error", role: "alert" }, lastError));
  if (state && view) {
    const options = view.you_can || [];
    const page = mirror.game !== "theplan" ? masterPlan : view.report ? steward : thePlan;
    body.push(...page(state, options));
  }
  body.push(el("section", { class: "log" }, el("h2", {}, "Last events"),
    el("ol", {}, ...mirror.events.slice(-8).map((e) => el("li", {}, e.words)))));
  document.body.dataset.seq = String(mirror.seq);
  // When each seq first reached the page's DOM (wall-clock ms), read by bench.web.
  (window.seqShown ||= {})[mirror.seq] ??= performance.timeOrigin + performance.now();
  document.body.dataset.pending = String(pending);
  root.replaceChildren(...body);
}
render();
