// The mood and energy timeline as plain SVG: mood is one of ten categories and energy one of three, so
// the chart is two banded rows of points over time (a category axis, not a number line), with the spans
// of difficult periods and patterns shaded behind them. Each point is an element with its own tooltip,
// which a test (and a screen reader's tree) can find.
import {s, when} from "./dom.js";

// most positive at the top (agents/core/mood.py: MOODS, POSITIVE, NEGATIVE)
export const MOODS = ["excited", "happy", "grateful", "flirty", "neutral", "bored", "frustrated", "anxious", "sad",
  "angry"];
export const ENERGIES = ["high", "medium", "low"];
const NEGATIVE = new Set(["sad", "anxious", "angry", "frustrated", "bored"]);
const POSITIVE = new Set(["happy", "excited", "grateful", "flirty"]);

const W = 960, LEFT = 104, RIGHT = 16, TOP = 14, ROW = 17, GAP = 26, EROW = 16, AXIS = 26;

function scale(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

function ticks(t0, t1, n) {
  const out = [];
  for (let i = 0; i <= n; i++) out.push(t0 + ((t1 - t0) * i) / n);
  return out;
}

/** The chart of a /contacts/{id}/timeline answer, as an <svg> element. */
export function moodChart(timeline) {
  const moods = timeline.moods || [];
  const moodTop = TOP, moodH = MOODS.length * ROW;
  const energyTop = moodTop + moodH + GAP, energyH = ENERGIES.length * EROW;
  const H = energyTop + energyH + AXIS;
  const svg = s("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": `mood and energy over ${moods.length} messages`});
  if (!moods.length) {
    svg.append(s("text", {x: W / 2, y: H / 2, "text-anchor": "middle", class: "axis"}, "no classified messages yet"));
    return svg;
  }
  const times = moods.map((m) => Date.parse(m.at));
  for (const sp of timeline.spans || []) times.push(Date.parse(sp.start), Date.parse(sp.end));
  let t0 = Math.min(...times), t1 = Math.max(...times);
  const pad = Math.max((t1 - t0) * 0.03, 60_000);
  t0 -= pad; t1 += pad;
  const x = scale(t0, t1, LEFT, W - RIGHT);
  const yMood = (m) => moodTop + (Math.max(0, MOODS.indexOf(m)) + 0.5) * ROW;
  const yEnergy = (e) => energyTop + (Math.max(0, ENERGIES.indexOf(e)) + 0.5) * EROW;

  // the bands and their labels
  MOODS.forEach((m, i) => {
    svg.append(s("rect", {x: LEFT, y: moodTop + i * ROW, width: W - LEFT - RIGHT, height: ROW,
      class: i % 2 ? "band odd" : "band"}));
    svg.append(s("text", {x: LEFT - 8, y: moodTop + (i + 0.5) * ROW + 4, "text-anchor": "end", class: "axis"}, m));
  });
  ENERGIES.forEach((e, i) => {
    svg.append(s("rect", {x: LEFT, y: energyTop + i * EROW, width: W - LEFT - RIGHT, height: EROW,
      class: i % 2 ? "band odd" : "band"}));
    svg.append(s("text", {x: LEFT - 8, y: energyTop + (i + 0.5) * EROW + 4, "text-anchor": "end", class: "axis"},
      `${e} energy`));
  });

  // the spans, behind the points
  for (const sp of timeline.spans || []) {
    const a = x(Date.parse(sp.start)), b = x(Date.parse(sp.end));
    const rect = s("rect", {x: a - 3, y: moodTop, width: Math.max(6, b - a + 6), height: energyTop + energyH - moodTop,
      class: `span ${sp.kind}`, "data-kind": sp.kind});
    rect.append(s("title", {}, `${sp.kind === "pattern" ? "pattern" : "difficult period"}: ${sp.label} ` +
      `(${when(sp.start)} – ${when(sp.end)}, ${sp.count})`));
    svg.append(rect);
  }

  // the lines, then the points
  const line = (pts) => pts.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
  svg.append(s("path", {d: line(moods.map((m) => [x(Date.parse(m.at)), yMood(m.mood)])), class: "trace"}));
  svg.append(s("path", {d: line(moods.map((m) => [x(Date.parse(m.at)), yEnergy(m.energy)])), class: "trace energy"}));
  for (const m of moods) {
    const px = x(Date.parse(m.at));
    const tone = POSITIVE.has(m.mood) ? "positive" : NEGATIVE.has(m.mood) ? "negative" : "neutral";
    const dot = s("circle", {cx: px, cy: yMood(m.mood), r: m.unusual ? 5 : 3.6,
      class: `point mood-point ${tone}${m.unusual ? " unusual" : ""}`, "data-event": m.sourceEventId});
    dot.append(s("title", {}, `${when(m.at)}: ${m.mood} (${Math.round(m.confidence * 100)}%), ${m.energy} energy, ` +
      `${m.style}${m.unusual ? ", unusual for them" : ""}`));
    svg.append(dot);
    svg.append(s("circle", {cx: px, cy: yEnergy(m.energy), r: 3, class: "point energy-point"}));
  }

  // the time axis
  const axisY = energyTop + energyH + 16;
  const days = (t1 - t0) / 86_400_000 > 2;
  const label = (t) => new Date(t).toLocaleString(undefined, days ? {month: "short", day: "numeric"} :
    {month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"});
  const marks = ticks(t0 + pad, t1 - pad, Math.min(6, Math.max(1, moods.length - 1)));
  marks.forEach((t, i) => svg.append(s("text", {x: x(t), y: axisY, class: "axis",
    "text-anchor": i === 0 ? "start" : i === marks.length - 1 ? "end" : "middle"}, label(t))));
  return svg;
}
