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

// What the caption says at `step` in `view` (explorer_data.caption says the same in Python).
export function caption(data, step, view) {
  if (!data.steps.length) return `${view} graph (no trace)`;
  const [nodeIndex, frameIndex, iteration, live, value] = data.steps[step];
  const [name, opType, perView] = data.nodes[nodeIndex];
  const [element, label, shown] = perView[view] || [null, null, null];
  const frame = data.frames[frameIndex];
  const where = frame ? `in frame ${frame}, iteration ${iteration}` : "in the root frame";
  const own = element !== null && label.includes(name);  // the node itself (or its lane), not a stand-in
  let text = `step ${step}: ${opType} ${own ? label : name} ${where}, ${live ? "live, value " + value : "dead"}`;
  if (element === null) {
    text += name.startsWith("gradients") && view !== "gradient"
      ? " \u2014 part of the gradient: see the gradient view" : " \u2014 not drawn in this view";
  } else if (!own) {
    text += ` \u2014 shown as ${label}`;
  }
  if (data.truncated) {
    text += ` \u2014 the trace holds the first ${data.steps.length.toLocaleString("en-US")} firings of a longer run`;
  }
  return text;
}

// For each element of `view`: the last firing (up to `step`) of the nodes it stands for.
function lastFirings(data, step, view) {
  const last = new Map();
  for (let s = 0; s <= step && s < data.steps.length; s++) {
    const row = data.steps[s];
    const element = (data.nodes[row[0]][2][view] || [null])[0];
    if (element !== null) last.set(element, row[3]);
  }
  return last;
}

function scaleFor(zoom, drawing, boxWidth) {
  if (zoom !== "auto") return parseFloat(zoom);
  const fit = Math.min(1, boxWidth / drawing.width);
  const readable = drawing.min_font > 0 ? MIN_TEXT_PX / drawing.min_font : fit;
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
  for (const view of Object.keys(model.get("data").views)) {
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
  bar.append(play, prev, next, slider, readout, el("span", {}, "speed"), speed, el("span", {}, "zoom"), zoom);
  const captionLine = el("div", { class: "cfnb-explorer-caption" });
  const box = el("div", { class: "cfnb-explorer-drawing" });
  root.append(views, bar, captionLine, box);
  return { views, play, prev, next, slider, readout, speed, zoom, caption: captionLine, box, last };
}

export function render({ model, el: host }) {
  const root = el("div", { class: "cfnb-explorer" });
  host.replaceChildren(root);
  const ui = buildControls(model, root);
  const data = () => model.get("data");
  let shownView = null, svg = null, elements = new Map(), timer = null;

  const setStep = (s) => {
    model.set("step", Math.max(0, Math.min(ui.last, s)));
    model.save_changes();
  };

  function showView() {
    const view = model.get("view");
    if (view === shownView) return;
    shownView = view;
    ui.box.innerHTML = data().views[view].svg;
    svg = ui.box.querySelector("svg");
    elements = new Map();  // the elements that stand for some firing node in this view (not the legend's)
    const used = new Set(data().nodes.map((n) => (n[2][view] || [null])[0]));
    if (svg) for (const g of svg.querySelectorAll("g.node, g.cluster")) if (used.has(g.id)) elements.set(g.id, g);
    for (const b of ui.views.children) b.classList.toggle("cfnb-active", b.dataset.view === view);
    applyZoom();
  }

  function applyZoom() {
    if (!svg) return;
    const drawing = data().views[shownView];
    const scale = scaleFor(model.get("zoom"), drawing, ui.box.clientWidth || 960);
    svg.setAttribute("width", `${(drawing.width * scale).toFixed(1)}px`);
    svg.setAttribute("height", `${(drawing.height * scale).toFixed(1)}px`);
    root.dataset.scale = scale.toFixed(4);
    follow();
  }

  function firingElement() {
    const row = data().steps[model.get("step")];
    if (!row) return null;
    const id = (data().nodes[row[0]][2][shownView] || [null])[0];
    return id === null ? null : elements.get(id) || null;
  }

  // Scroll the box (only the box, not the page) so the firing element is in view.
  function follow() {
    const target = firingElement();
    if (!target) return;
    const r = target.getBoundingClientRect(), b = ui.box.getBoundingClientRect(), pad = 24;
    if (r.left < b.left + pad || r.right > b.right - pad) {
      ui.box.scrollLeft += (r.left + r.right) / 2 - (b.left + b.right) / 2;
    }
    if (r.top < b.top + pad || r.bottom > b.bottom - pad) {
      ui.box.scrollTop += (r.top + r.bottom) / 2 - (b.top + b.bottom) / 2;
    }
  }

  function restyle() {
    showView();
    const step = model.get("step"), d = data();
    const last = lastFirings(d, step, shownView);
    for (const [id, g] of elements) {
      const fired = last.has(id);
      g.classList.toggle("cfnb-unfired", !fired && g.classList.contains("node"));
      g.classList.toggle("cfnb-dead", fired && last.get(id) === 0);
      g.classList.remove("cfnb-firing");
    }
    svg && svg.querySelectorAll(".cfnb-mark").forEach((m) => m.remove());
    const target = firingElement();
    if (target) {
      target.classList.add("cfnb-firing");
      mark(target, d.steps[step]);
    }
    root.dataset.firing = target ? target.id : "";
    ui.caption.textContent = caption(d, step, shownView);
    ui.slider.value = String(step);
    ui.readout.textContent = `${step} / ${ui.last}`;
    follow();
  }

  // A ring around the firing element and its value beside it, drawn in the SVG's own coordinates.
  function mark(target, row) {
    const box = target.getBBox(), layer = svg.querySelector("g.graph") || svg;
    const ring = document.createElementNS(SVG_NS, "rect");
    for (const [k, v] of Object.entries({ x: box.x - 3, y: box.y - 3, width: box.width + 6, height: box.height + 6,
                                          rx: 4, class: "cfnb-mark cfnb-ring" })) ring.setAttribute(k, v);
    layer.append(ring);
    if (row[3] && row[4] !== "") {
      const tag = document.createElementNS(SVG_NS, "text");
      for (const [k, v] of Object.entries({ x: box.x + box.width + 6, y: box.y + box.height / 2 + 4,
                                            class: "cfnb-mark cfnb-value" })) tag.setAttribute(k, v);
      tag.textContent = row[4];
      layer.append(tag);
    }
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    ui.play.textContent = "\u25B6 play";
    root.classList.remove("cfnb-playing");
  }

  function start() {
    if (model.get("step") >= ui.last) setStep(0);
    clearInterval(timer);
    timer = setInterval(() => (model.get("step") >= ui.last ? stop() : setStep(model.get("step") + 1)),
                        model.get("interval"));
    ui.play.textContent = "\u275A\u275A pause";
    root.classList.add("cfnb-playing");
  }

  ui.play.addEventListener("click", () => (timer ? stop() : start()));
  ui.prev.addEventListener("click", () => { stop(); setStep(model.get("step") - 1); });
  ui.next.addEventListener("click", () => { stop(); setStep(model.get("step") + 1); });
  ui.slider.addEventListener("input", () => { stop(); setStep(parseInt(ui.slider.value, 10)); });
  ui.speed.addEventListener("change", () => { model.set("interval", parseInt(ui.speed.value, 10)); model.save_changes(); });
  ui.zoom.addEventListener("change", () => { model.set("zoom", ui.zoom.value); model.save_changes(); });

  const handlers = {
    "change:step": restyle,
    "change:view": restyle,
    "change:zoom": () => { ui.zoom.value = model.get("zoom"); applyZoom(); },
    "change:interval": () => { ui.speed.value = String(model.get("interval")); if (timer) start(); },
  };
  for (const [event, handler] of Object.entries(handlers)) model.on(event, handler);
  const resize = new ResizeObserver(() => model.get("zoom") === "auto" && applyZoom());
  resize.observe(ui.box);
  restyle();
  return () => {
    stop();
    resize.disconnect();
    for (const [event, handler] of Object.entries(handlers)) model.off(event, handler);
  };
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
