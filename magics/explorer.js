// The cfnb explorer in the browser: view buttons, Play (with a speed), a step slider and zoom, over
// drawings and a trace the page already holds (magics/explorer_data.py builds them). Stepping only
// restyles SVG elements, so it is instant and needs no kernel.
//
// Loaded two ways: as an anywidget ES module (`render({model, el})`, the model synced with Python's
// Explorer), and from the explorer's static HTML fallback (`mount(host)`), where a small local model
// over the state embedded in the page stands in for the widget's model.

const ZOOMS = [["fit (readable)", "auto"], ["50%", "0.5"], ["75%", "0.75"], ["100%", "1"], ["150%", "1.5"],
               ["200%", "2"]];
const SPEEDS = [["1 step/s", 1000], ["2 steps/s", 500], ["4 steps/s", 250], ["10 steps/s", 100],
                ["25 steps/s", 40]];
const MIN_TEXT_PX = 9;   // the smallest text a drawing may show at the default zoom
const SVG_NS = "http://www.w3.org/2000/svg";
const SHAPES = "polygon, ellipse, path";

// What the caption says at `step` in the drawing `key` (a view at a level of detail: `lowered`,
// `lowered/all`); explorer_data.caption says the same in Python.
export function caption(data, step, key) {
  if (!data.steps.length) return `${key.split("/")[0]} graph (no trace)`;
  const [nodeIndex, frameIndex, iteration, live, value] = data.steps[step];
  const [name, opType, perView] = data.nodes[nodeIndex];
  const [element, label] = perView[key] || [null, null];
  const frame = data.frames[frameIndex];
  const where = frame ? `in frame ${frame}, iteration ${iteration}` : "in the root frame";
  const own = element !== null && label.includes(name);  // the node itself (or its lane), not a stand-in
  let text = `step ${step}: ${opType} ${own ? label : name} ${where}, ${live ? "live, value " + value : "dead"}`;
  if (element === null) {
    text += name.startsWith("gradients") && !key.startsWith("gradient")
      ? " \u2014 part of the gradient: see the gradient view" : " \u2014 not drawn in this view";
  } else if (!own) {
    text += ` \u2014 shown as ${label}`;
  }
  if (data.truncated) {
    text += ` \u2014 the trace holds the first ${data.steps.length.toLocaleString("en-US")} firings of a longer run`;
  }
  return text;
}

// Which elements of a drawing have fired, and whether their last firing was live, kept step by step: a
// step forward applies one firing, a step back undoes one (each firing remembers what it replaced), so a
// Play over n steps costs n updates, not the n^2 of recounting from step 0 at every step.
class Firings {
  constructor(data, key) {
    this.data = data;
    this.key = key;
    this.last = new Map();   // element id -> live (0/1) of its last firing up to `step`
    this.undo = [];          // per applied step: [element id, what `last` held before] (null: not drawn)
    this.step = -1;
  }

  // Move to `step`; returns the ids of the elements whose state changed.
  moveTo(step) {
    const changed = new Set(), steps = this.data.steps;
    step = Math.min(step, steps.length - 1);
    for (; this.step < step; ) {
      const row = steps[++this.step];
      const id = (this.data.nodes[row[0]][2][this.key] || [null])[0];
      this.undo.push(id === null ? null : [id, this.last.get(id)]);
      if (id !== null) { this.last.set(id, row[3]); changed.add(id); }
    }
    for (; this.step > step; this.step--) {
      const entry = this.undo.pop();
      if (entry === null) continue;
      const [id, before] = entry;
      if (before === undefined) this.last.delete(id); else this.last.set(id, before);
      changed.add(id);
    }
    return changed;
  }
}

function scaleFor(zoom, drawing, boxWidth) {
  if (zoom !== "auto") return parseFloat(zoom);
  const fit = Math.min(1, boxWidth / drawing.width);
  const readable = drawing.font_px > 0 ? MIN_TEXT_PX / drawing.font_px : fit;
  return Math.min(1, Math.max(fit, readable));  // fit the width unless the text would fall under 9 px
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function options(select, pairs, value) {
  for (const [label, v] of pairs) select.append(el("option", { value: String(v) }, label));
  select.value = String(value);
}

function buildControls(model, root) {
  const views = el("div", { class: "cfnb-explorer-views", role: "group" });
  for (const view of model.get("data").view_names) {
    const b = el("button", { class: "cfnb-view", "data-view": view, type: "button" }, view);
    b.addEventListener("click", () => { model.set("view", view); model.save_changes(); });
    views.append(b);
  }
  const bar = el("div", { class: "cfnb-explorer-controls" });
  const play = el("button", { class: "cfnb-play", type: "button", title: "play / pause" }, "\u25B6 play");
  const prev = el("button", { class: "cfnb-prev", type: "button", title: "previous step" }, "\u25C0");
  const next = el("button", { class: "cfnb-next", type: "button", title: "next step" }, "\u25B6");
  const last = Math.max(0, model.get("data").steps.length - 1);
  const slider = el("input", { class: "cfnb-slider", type: "range", min: "0", max: String(last), step: "1" });
  const readout = el("span", { class: "cfnb-readout" });
  const speed = el("select", { class: "cfnb-speed", title: "speed" });
  options(speed, SPEEDS, model.get("interval"));
  const zoom = el("select", { class: "cfnb-zoom", title: "zoom" });
  options(zoom, ZOOMS, model.get("zoom"));
  const every = el("input", { type: "checkbox", class: "cfnb-detail" });
  every.checked = model.get("detail") === "all";
  every.addEventListener("change", () => { model.set("detail", every.checked ? "all" : "lesson"); model.save_changes(); });
  const detail = el("label", { class: "cfnb-detail-label", title: "every node, as TensorFlow built it, with its names" });
  detail.append(every, " every node");
  views.append(detail);
  bar.append(play, prev, next, slider, readout, el("span", {}, "speed"), speed, el("span", {}, "zoom"), zoom);
  const captionLine = el("div", { class: "cfnb-explorer-caption" });
  const box = el("div", { class: "cfnb-explorer-drawing" });
  root.append(views, bar, captionLine, box);
  return { views, play, prev, next, slider, readout, speed, zoom, every, caption: captionLine, box, last };
}

// One view of the explorer in the page: it draws the current view and restyles it per step.
class ExplorerView {
  constructor(model, host) {
    this.model = model;
    this.root = el("div", { class: "cfnb-explorer" });
    host.replaceChildren(this.root);
    this.ui = buildControls(model, this.root);
    this.shownView = null;
    this.svg = null;
    this.elements = new Map();
    this.timer = null;
    this.wire();
    this.restyle();
  }

  get data() { return this.model.get("data"); }

  // The drawing shown: the view at its level of detail (explorer_data.drawing_key).
  get key() {
    const view = this.model.get("view"), detail = this.model.get("detail");
    return detail === "lesson" ? view : `${view}/${detail}`;
  }

  setStep(step) {
    this.model.set("step", Math.max(0, Math.min(this.ui.last, step)));
    this.model.save_changes();
  }

  setState(key, value) {
    this.model.set(key, value);
    this.model.save_changes();
  }

  wire() {
    const { ui, model } = this;
    ui.play.addEventListener("click", () => (this.timer ? this.stop() : this.start()));
    ui.prev.addEventListener("click", () => { this.stop(); this.setStep(model.get("step") - 1); });
    ui.next.addEventListener("click", () => { this.stop(); this.setStep(model.get("step") + 1); });
    ui.slider.addEventListener("input", () => { this.stop(); this.setStep(parseInt(ui.slider.value, 10)); });
    ui.speed.addEventListener("change", () => this.setState("interval", parseInt(ui.speed.value, 10)));
    ui.zoom.addEventListener("change", () => this.setState("zoom", ui.zoom.value));
    this.handlers = {
      "change:step": () => this.restyle(),
      "change:view": () => this.restyle(),
      "change:detail": () => { ui.every.checked = model.get("detail") === "all"; this.restyle(); },
      "change:zoom": () => { ui.zoom.value = model.get("zoom"); this.applyZoom(); },
      "change:interval": () => { ui.speed.value = String(model.get("interval")); if (this.timer) this.start(); },
    };
    for (const [event, handler] of Object.entries(this.handlers)) model.on(event, handler);
    this.resize = new ResizeObserver(() => model.get("zoom") === "auto" && this.applyZoom());
    this.resize.observe(ui.box);
  }

  destroy() {
    this.stop();
    this.resize.disconnect();
    for (const [event, handler] of Object.entries(this.handlers)) this.model.off(event, handler);
  }

  // The view's drawing, put in the box once per view switch.
  showView() {
    const key = this.key, view = this.model.get("view");
    if (key === this.shownView) return;
    this.shownView = key;
    this.ui.box.innerHTML = this.data.views[key].svg;
    this.svg = this.ui.box.querySelector("svg");
    this.elements = new Map();  // the elements that stand for some firing node in this view (not the legend's)
    const used = new Set(this.data.nodes.map((n) => (n[2][key] || [null])[0]));
    for (const g of this.svg ? this.svg.querySelectorAll("g.node, g.cluster") : []) {
      if (used.has(g.id)) this.elements.set(g.id, g);
    }
    for (const b of this.ui.views.querySelectorAll("button")) b.classList.toggle("cfnb-active", b.dataset.view === view);
    this.firings = new Firings(this.data, key);
    this.boxes = new Map();  // element id -> getBBox(), read once per drawing (restyling moves nothing)
    this.marks = [];
    this.firing = null;
    for (const id of this.elements.keys()) this.styleElement(id);
    this.applyZoom();
  }

  applyZoom() {
    if (!this.svg) return;
    const drawing = this.data.views[this.shownView];
    const scale = scaleFor(this.model.get("zoom"), drawing, this.ui.box.clientWidth || 960);
    this.svg.setAttribute("width", `${(drawing.width * scale).toFixed(1)}px`);
    this.svg.setAttribute("height", `${(drawing.height * scale).toFixed(1)}px`);
    this.root.dataset.scale = scale.toFixed(4);
    this.follow();
  }

  firingElement() {
    const row = this.data.steps[this.model.get("step")];
    if (!row) return null;
    const id = (this.data.nodes[row[0]][2][this.shownView] || [null])[0];
    return id === null ? null : this.elements.get(id) || null;
  }

  // Scroll the box (only the box, not the page) so the firing element is in view.
  follow() {
    const target = this.firingElement();
    if (target) this.scrollBy(this.scrollFor(target));
  }

  // How far to scroll the box to bring `target` into view (read from the layout: nothing is written).
  scrollFor(target) {
    const box = this.ui.box, r = target.getBoundingClientRect(), b = box.getBoundingClientRect(), pad = 24;
    return [r.left < b.left + pad || r.right > b.right - pad ? (r.left + r.right - b.left - b.right) / 2 : 0,
            r.top < b.top + pad || r.bottom > b.bottom - pad ? (r.top + r.bottom - b.top - b.bottom) / 2 : 0];
  }

  scrollBy([dx, dy]) {
    if (dx) this.ui.box.scrollLeft += dx;
    if (dy) this.ui.box.scrollTop += dy;
  }

  // The classes of element `id` from its last firing: unfired (a node never fired yet), dead, or neither.
  styleElement(id) {
    const g = this.elements.get(id);
    if (!g) return;
    const live = this.firings.last.get(id);
    g.classList.toggle("cfnb-unfired", live === undefined && g.classList.contains("node"));
    g.classList.toggle("cfnb-dead", live === 0);
  }

  // Show the model's step: only the elements whose last firing changed are restyled, and the page's layout
  // is read (the ring's box, the scroll box) before anything is written, so a step lays the page out once.
  restyle() {
    this.showView();
    const step = this.model.get("step"), data = this.data, ui = this.ui;
    const target = this.firingElement();
    const box = target && this.boxOf(target);
    const scroll = target && this.scrollFor(target);
    for (const id of this.firings.moveTo(step)) this.styleElement(id);
    if (this.firing) this.firing.classList.remove("cfnb-firing");
    for (const m of this.marks) m.remove();
    this.marks = [];
    this.firing = target;
    if (target) {
      target.classList.add("cfnb-firing");
      this.mark(box, data.steps[step]);
    }
    this.root.dataset.firing = target ? target.id : "";
    ui.caption.textContent = caption(data, step, this.shownView);
    ui.slider.value = String(step);
    ui.readout.textContent = `${step} / ${ui.last}`;
    if (scroll) this.scrollBy(scroll);
  }

  boxOf(target) {
    if (!this.boxes.has(target.id)) this.boxes.set(target.id, target.getBBox());
    return this.boxes.get(target.id);
  }

  // A ring around the firing element and its value beside it, drawn in the SVG's own coordinates.
  mark(box, row) {
    const layer = this.svg.querySelector("g.graph") || this.svg;
    const add = (tag, attrs, text) => {
      const node = document.createElementNS(SVG_NS, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      node.textContent = text;
      layer.append(node);
      this.marks.push(node);
    };
    add("rect", { x: box.x - 3, y: box.y - 3, width: box.width + 6, height: box.height + 6, rx: 4,
                  class: "cfnb-mark cfnb-ring" }, "");
    if (row[3] && row[4] !== "") {
      add("text", { x: box.x + box.width + 6, y: box.y + box.height / 2 + 4, class: "cfnb-mark cfnb-value" }, row[4]);
    }
  }

  stop() {
    if (this.timer === null) return;  // not playing: rewriting the button's text would dirty the layout
    clearInterval(this.timer);
    this.timer = null;
    this.ui.play.textContent = "\u25B6 play";
    this.root.classList.remove("cfnb-playing");
  }

  start() {
    const model = this.model, last = this.ui.last;
    if (model.get("step") >= last) this.setStep(0);
    clearInterval(this.timer);
    this.timer = setInterval(() => (model.get("step") >= last ? this.stop() : this.setStep(model.get("step") + 1)),
                             model.get("interval"));
    this.ui.play.textContent = "\u275A\u275A pause";
    this.root.classList.add("cfnb-playing");
  }
}

export function render({ model, el: host }) {
  const view = new ExplorerView(model, host);
  return () => view.destroy();
}

// A model over plain state, for the static HTML fallback (no widget manager, no kernel).
function localModel(state) {
  const listeners = {};
  return {
    get: (key) => state[key],
    set(key, value) {
      const changed = state[key] !== value;
      state[key] = value;
      if (changed) (listeners[`change:${key}`] || []).forEach((f) => f());
    },
    save_changes() {},
    on(event, f) { (listeners[event] = listeners[event] || []).push(f); },
    off(event, f) { listeners[event] = (listeners[event] || []).filter((g) => g !== f); },
  };
}

// The static fallback: `host` holds the state as JSON in a <script type="application/json"> child.
export function mount(host) {
  const state = JSON.parse(host.querySelector("script.cfnb-explorer-state").textContent);
  return render({ model: localModel(state), el: host });
}

export default { render };
