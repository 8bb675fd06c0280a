// The rapport console: a list of contacts and a page per contact, read from the public JSON API with the
// key the user pasted. Routing is the URL's hash (#/ and #/contact/<id>), so reloading keeps the place.
import {ApiError, api, path, session} from "./api.js";
import {moodChart} from "./chart.js";
import {h, show, when} from "./dom.js";

const view = document.getElementById("view");
const PAGE = 25;
const MEMORY_PAGE = 50;
const STATUSES = ["", "active", "expired", "superseded", "merged", "compressed", "pruned", "archived"];
const MEMORY_ITEM = "/contacts/{contact_id}/memories/{memory_id}";

// ------------------------------------------------------------------------------------------ sign-in
let scope = null;  // GET /tenants: the key's tenant, whether it is an admin's, the tenants it may open

function signedIn(on) {
  document.getElementById("sign-in").hidden = on;
  document.getElementById("sign-out").hidden = !on;
  const admin = on && scope && scope.admin;
  document.getElementById("tenant-form").hidden = !admin;
  document.getElementById("own-tenant").hidden = !on || admin;
  document.getElementById("own-tenant").textContent = scope ? `tenant ${scope.tenantId}` : "";
  document.getElementById("tenant").value = session.tenant;
  if (!on) { view.replaceChildren(); scope = null; }
}

/** Which tenants the key may open (asked once per key): an admin key picks among them. */
async function loadScope() {
  if (scope) return;
  scope = await api("/tenants", {tenant_id: undefined});
  if (!scope.admin) session.tenant = null;
  show(document.getElementById("tenants"),
    scope.tenants.map((t) => h("option", {value: t.tenantId}, `${t.contacts} contacts`)));
}

document.getElementById("key-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("key");
  session.key = input.value.trim();
  input.value = "";
  const problem = document.getElementById("sign-in-error");
  try {
    await loadScope();
    problem.textContent = "";
    signedIn(true);
    route();
  } catch (err) {
    session.key = null;
    problem.textContent = err instanceof ApiError && err.status === 401 ? "This key is not valid (or revoked)." :
      `Could not open: ${err.message}`;
  }
});

document.getElementById("sign-out").addEventListener("click", () => {
  session.key = null;
  session.tenant = null;
  signedIn(false);
});

document.getElementById("tenant-form").addEventListener("submit", (e) => {
  e.preventDefault();
  session.tenant = document.getElementById("tenant").value.trim();
  location.hash = "#/";
  route();
});

function failure(err) {
  if (err instanceof ApiError && err.status === 401) {
    session.key = null;
    signedIn(false);
    document.getElementById("sign-in-error").textContent = "The key was refused; paste it again.";
    return h("p", {}, "");
  }
  const hint = err instanceof ApiError && err.status === 403 ? " (only an admin key may open another tenant)" : "";
  return h("p", {class: "error", role: "alert"}, `${err.message}${hint}`);
}

// ----------------------------------------------------------------------------------------- contacts
async function contactsPage() {
  const form = h("form", {class: "search", role: "search"},
    h("input", {name: "q", type: "search", placeholder: "search id or name", maxlength: 128, autocomplete: "off"}),
    h("select", {name: "sort", "aria-label": "sort"},
      h("option", {value: "last_seen"}, "last seen"), h("option", {value: "contact_id"}, "contact id")),
    h("button", {type: "submit"}, "Search"));
  const body = h("tbody");
  const more = h("button", {type: "button", hidden: true, class: "more"}, "More");
  const status = h("p", {class: "muted"});
  show(view, h("section", {class: "card"},
    h("h1", {}, "Contacts ", h("span", {class: "muted small"}, session.tenant ? `tenant ${session.tenant}` : "")),
    form,
    h("table", {class: "list"}, h("thead", {}, h("tr", {},
      ["contact", "name", "last seen", "stage", "mood", "memories", "messages"].map((c) => h("th", {}, c)))), body),
    status, more));

  let cursor = null;
  let params = {};
  async function load(reset) {
    if (reset) { body.replaceChildren(); cursor = null; }
    status.textContent = "loading…";
    try {
      const page = await api("/contacts", {...params, limit: PAGE, cursor});
      for (const c of page.contacts) {
        const link = h("a", {href: `#/contact/${encodeURIComponent(c.contactId)}`, class: "contact-link"}, c.contactId);
        body.append(h("tr", {}, h("td", {}, link), h("td", {}, c.displayName || "—"), h("td", {}, when(c.lastSeenAt)),
          h("td", {}, h("span", {class: `pill stage-${c.relationshipStage}`}, c.relationshipStage)),
          h("td", {}, c.mood || "—"), h("td", {class: "num"}, c.memoryCount), h("td", {class: "num"}, c.messageCount)));
      }
      cursor = page.nextCursor;
      more.hidden = !cursor;
      status.textContent = body.children.length ? "" : "No contacts.";
    } catch (err) {
      status.replaceChildren(failure(err));
    }
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    params = {q: data.get("q").trim() || undefined, sort: data.get("sort")};
    load(true);
  });
  more.addEventListener("click", () => load(false));
  await load(true);
}

// ------------------------------------------------------------------------------------------ contact
function section(title, ...children) {
  return h("section", {class: "card"}, h("h2", {}, title), ...children);
}

function definitions(pairs) {
  return h("dl", {class: "facts"}, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v))));
}

async function contactPage(contactId) {
  const title = h("h1", {}, contactId);
  const loading = (name) => section(name, h("p", {class: "muted"}, "loading…"));
  const parts = {profile: loading("Profile"), chart: loading("Mood and energy"), memories: section("Memories"),
    cards: loading("Entities"), sessions: loading("Sessions"), triggers: loading("Triggers")};
  show(view, h("p", {}, h("a", {href: "#/"}, "← contacts")), title, parts.profile, parts.chart,
    h("div", {class: "two"}, parts.triggers, parts.cards), parts.memories, parts.sessions);

  const [ctx, exported, timeline, trig] = await Promise.allSettled([
    api(path("/context/{id}", contactId), {budget: 0}), api(path("/contacts/{id}/export", contactId)),
    api(path("/contacts/{id}/timeline", contactId)), api(path("/contacts/{id}/triggers", contactId))]);
  const refused = [ctx, exported, timeline, trig].find((r) => r.status === "rejected" &&
    r.reason instanceof ApiError && r.reason.status === 401);
  if (refused) { failure(refused.reason); return; }

  // each part shows its own data, or why it could not be read
  const fill = (el, name, result, render) => show(el, h("h2", {}, name),
    result.status === "fulfilled" ? render(result.value) : failure(result.reason));
  if (ctx.status === "fulfilled") title.replaceChildren(ctx.value.contact.displayName || contactId,
    h("span", {class: "muted small"}, ` ${contactId}${ctx.value.contact.channel ? ` · ${ctx.value.contact.channel}` : ""}`));
  fill(parts.profile, "Profile", ctx, (c) => profileView(c, exported.status === "fulfilled" ? exported.value : null));
  fill(parts.chart, "Mood and energy", timeline, chartView);
  fill(parts.triggers, "Triggers", trig, (t) => triggersView(t.triggers));
  fill(parts.cards, "Entities", exported, entitiesView);
  fill(parts.sessions, "Sessions", exported, (ex) => sessionsView(ex.sessions));

  const messages = new Map(exported.status === "fulfilled" ? exported.value.messages.map((m) => [m.eventId, m]) : []);
  memoryList(parts.memories, contactId, messages);
}

/** Who, how they are now, and the paragraph the model reads. */
function profileView(c, exported) {
  const st = c.state, state = (exported && exported.state) || {};
  return [state.profile ? h("p", {class: "profile"}, state.profile) : h("p", {class: "muted"}, "No profile paragraph yet."),
    definitions([["stage", st.relationshipStage], ["mood", `${st.mood} (${Math.round(st.moodConfidence * 100)}%)`],
      ["energy", st.energy], ["style", st.style], ["usual mood", st.moodUsual], ["sessions", st.sessionCount],
      ["active streak", `${st.activeStreak} days`], ["churn risk", st.churnRisk],
      ["outreach hours", st.preferredOutreachHours && st.preferredOutreachHours.label],
      ["first seen", state.firstSeen && when(state.firstSeen)], ["last seen", state.lastSeen && when(state.lastSeen)],
      ["messages", state.messageCount]])];
}

function chartView(t) {
  return [moodChart(t), h("p", {class: "legend muted small"}, h("span", {class: "swatch difficult_period"}),
    " difficult period ", h("span", {class: "swatch pattern"}), " pattern ", h("span", {class: "dot unusual"}),
    " unusual for them", t.truncated ? ` · the last ${t.moods.length} messages` : "")];
}

/** Crisis flags first, each with its severity, category, level, cue and risk. */
function triggersView(all) {
  const list = [...all].sort((a, b) => (b.kind === "crisis") - (a.kind === "crisis"));
  if (!list.length) return h("p", {class: "muted"}, "None.");
  return h("ul", {class: "triggers"}, list.map((t) => h("li", {class: `trigger ${t.kind}`},
    h("div", {}, h("strong", {}, t.kind.replace("_", " ")),
      t.severity ? h("span", {class: `pill sev-${t.severity}`}, t.severity) : "",
      t.category ? h("span", {class: "pill"}, t.category) : "", t.level ? h("span", {class: "pill"}, t.level) : "",
      h("span", {class: "muted small"}, ` ${t.status}`)),
    h("div", {}, t.reason),
    h("div", {class: "muted small"}, `due ${when(t.dueAt)}`, t.cue ? ` · cue “${t.cue}”` : "",
      typeof t.score === "number" ? ` · risk ${t.score.toFixed(2)}` : "", t.humanReview ? " · for human review" : ""))));
}

/** Entity cards: the entity and its most important active memories. */
function entitiesView(ex) {
  if (!ex.entities.length) return h("p", {class: "muted"}, "None.");
  return h("div", {class: "cards"}, ex.entities.map((e) => {
    const about = ex.memories.filter((m) => m.status === "active" && m.entityRefs.includes(e.ref))
      .sort((a, b) => b.importance - a.importance).slice(0, 4);
    return h("article", {class: "entity"}, h("h3", {}, e.displayName || e.ref, " ", h("span", {class: "muted small"}, e.ref)),
      h("div", {class: "muted small"}, `${e.entityType} · ${e.mentions} mention${e.mentions === 1 ? "" : "s"} · ` +
        `last ${when(e.lastSeen)}`, e.aliases.length ? ` · also “${e.aliases.join("”, “")}”` : ""),
      about.length ? h("ul", {}, about.map((m) => h("li", {}, m.content))) : "");
  }));
}

function sessionsView(sessions) {
  if (!sessions.length) return h("p", {class: "muted"}, "None.");
  return h("table", {class: "list"}, h("thead", {}, h("tr", {},
    ["#", "session", "persona", "started", "last activity", "ended", "turns"].map((c) => h("th", {}, c)))),
  h("tbody", {}, [...sessions].reverse().map((x) => h("tr", {}, h("td", {class: "num"}, x.idx),
    h("td", {}, x.session_id), h("td", {}, x.persona_id || "—"), h("td", {}, when(x.started_at)),
    h("td", {}, when(x.last_activity_at)), h("td", {}, x.ended_at ? when(x.ended_at) : "open"),
    h("td", {class: "num"}, x.turn_count)))));
}

// -------------------------------------------------------------------------------------------- memories
function tierOf(m) {
  return m.status === "active" ? "working set" : "archive";
}

function memoryList(container, contactId, messages) {
  const status = h("select", {name: "status", "aria-label": "status"},
    STATUSES.map((v) => h("option", {value: v}, v || "every status")));
  const tier = h("select", {name: "tier", "aria-label": "tier"},
    ["", "working set", "archive"].map((v) => h("option", {value: v}, v || "both tiers")));
  const type = h("select", {name: "type", "aria-label": "type"}, h("option", {value: ""}, "every type"));
  const list = h("ol", {class: "memories"});
  const more = h("button", {type: "button", hidden: true, class: "more"}, "More");
  const note = h("p", {class: "muted"});
  show(container, h("h2", {}, "Memories"), h("div", {class: "filters"}, status, tier, type), list, note, more);

  let rows = [], cursor = null;
  const types = new Set();
  function render() {
    for (const t of [...types].sort()) {
      if (![...type.options].some((o) => o.value === t)) type.append(h("option", {value: t}, t));
    }
    const shown = rows.filter((m) => (!tier.value || tierOf(m) === tier.value) && (!type.value ||
      m.memoryType === type.value));
    list.replaceChildren(...shown.map((m) => memoryItem(m, contactId, messages, reload)));
    note.textContent = shown.length ? `${shown.length} of ${rows.length} loaded` : "No memories here.";
  }
  async function load(reset) {
    if (reset) { rows = []; cursor = null; }
    note.textContent = "loading…";
    try {
      const page = await api(path("/contacts/{id}/memories", contactId), {status: status.value || undefined,
        limit: MEMORY_PAGE, cursor});
      for (const m of page.memories) types.add(m.memoryType);
      rows = rows.concat(page.memories);
      cursor = page.nextCursor;
      more.hidden = !cursor;
      render();
    } catch (err) {
      note.replaceChildren(failure(err));
    }
  }
  function reload() { return load(true); }
  status.addEventListener("change", reload);
  tier.addEventListener("change", render);
  type.addEventListener("change", render);
  more.addEventListener("click", () => load(false));
  load(true);
}

function memoryItem(m, contactId, messages, reload) {
  const sources = m.sourceEventIds.map((id) => {
    const msg = messages.get(id);
    return h("li", {class: "source"}, msg ? [h("span", {class: "muted small"}, `${msg.role || "?"} · ${when(msg.occurredAt)}: `),
      msg.message ?? ""] : h("span", {class: "muted small"}, `${id} (not in the ledger)`));
  });
  const row = h("li", {class: `memory status-${m.status}`, "data-memory": m.id},
    h("div", {class: "memory-head"}, h("span", {class: "pill"}, m.memoryType), h("span", {class: "pill tier"}, tierOf(m)),
      m.status !== "active" ? h("span", {class: "pill"}, m.status) : "", m.pinned ? h("span", {class: "pill"}, "pinned") : "",
      h("span", {class: "muted small"}, `importance ${m.importance.toFixed(2)} · ${when(m.createdAt)}`)),
    h("div", {class: "content"}, m.content),
    m.entityRefs.length ? h("div", {class: "muted small"}, m.entityRefs.join(", ")) : "",
    h("details", {}, h("summary", {}, `source messages (${m.sourceEventIds.length})`), h("ul", {class: "sources"}, sources)));
  const problem = h("span", {class: "error small", role: "alert"});
  const bar = h("div", {class: "actions"},
    h("button", {type: "button", class: "correct", onclick: () => correcting(row, m, contactId, reload)}, "Correct"),
    h("button", {type: "button", class: "forget danger", onclick: async (e) => {
      if (!confirm(`Forget this memory? Its content is erased for good.\n\n${m.content}`)) return;
      e.target.disabled = true;
      try {
        await settle(contactId, m.id, await api(path(MEMORY_ITEM, contactId, m.id), {}, {method: "DELETE"}));
        await reload();
      } catch (err) { problem.textContent = err.message; e.target.disabled = false; }
    }}, "Forget"));
  row.append(bar, problem);
  return row;
}

function correcting(row, m, contactId, reload) {
  const text = h("textarea", {name: "content", rows: 2, maxlength: 4096, class: "correction"});
  text.value = m.content;
  const problem = h("span", {class: "error small", role: "alert"});
  const form = h("form", {class: "correct-form"}, text, h("button", {type: "submit"}, "Save"),
    h("button", {type: "button", onclick: () => form.remove()}, "Cancel"), problem);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const content = text.value.trim();
    if (!content || content === m.content) { form.remove(); return; }
    form.querySelector("button[type=submit]").disabled = true;
    try {
      const accepted = await api(path(MEMORY_ITEM, contactId, m.id), {}, {method: "PATCH", body: {content}});
      await settle(contactId, m.id, accepted);
      await reload();
    } catch (err) { problem.textContent = err.message; form.querySelector("button[type=submit]").disabled = false; }
  });
  row.append(form);
  text.focus();
}

/** Wait until the correction or forgetting is in the projections (the memory read `after=` its event). */
async function settle(contactId, memoryId, accepted) {
  if (!accepted || !accepted.eventId) return;
  for (let i = 0; i < 6; i++) {
    try {
      await api(path(MEMORY_ITEM, contactId, memoryId), {after: accepted.eventId});
      return;
    } catch (err) {
      if (err instanceof ApiError && err.status === 504) continue;  // not reflected within 5 s: ask again
      if (err instanceof ApiError && err.status === 404) return;     // forgotten: gone
      throw err;
    }
  }
}

// ------------------------------------------------------------------------------------------- routing
async function route() {
  if (!session.key) { signedIn(false); return; }
  const m = location.hash.match(/^#\/contact\/(.+)$/);
  try {
    await loadScope();
    signedIn(true);
    if (m) await contactPage(decodeURIComponent(m[1]));
    else await contactsPage();
  } catch (err) {
    view.append(failure(err));
  }
}

window.addEventListener("hashchange", route);
route();
