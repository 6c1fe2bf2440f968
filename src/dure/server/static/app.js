// Dure web UI: threads, streamed answers (SSE over fetch), thinking steps, sources, slots and
// the audit trail — all drawn from the typed events the server streams. No build step.
import { documentsDialog, uploadFile } from "/static/documents.js";
import { renderMarkdown } from "/static/markdown.js";

const $ = (id) => document.getElementById(id);
const KEY_STORE = "dure.apiKey";
const state = { key: localStorage.getItem(KEY_STORE) || "", config: null, agents: [], threads: [], thread: null, busy: false };

// ------------------------------------------------------------------ API

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function headers(extra = {}) {
  return state.key ? { Authorization: `Bearer ${state.key}`, ...extra } : extra;
}

async function api(path, { method = "GET", json, form } = {}) {
  const init = { method, headers: headers() };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (form) {
    init.body = form;
  }
  const res = await fetch(path, init);
  if (res.status === 204) return null;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const message = data.detail || (data.error && data.error.message) || `요청 실패 (${res.status})`;
    if (res.status === 401) askForKey(message);
    throw new ApiError(res.status, message);
  }
  return data;
}

// Server-Sent Events over fetch: a message posted (POST), or the answer in progress taken up
// again after the stream dropped (GET …/events, from the frame after `lastId`). Yields
// {event, data, id} as they arrive.
async function* eventStream(path, { body, lastId } = {}) {
  const extra = { Accept: "text/event-stream" };
  if (body !== undefined) extra["Content-Type"] = "application/json";
  if (lastId !== undefined && lastId !== null) extra["Last-Event-ID"] = String(lastId);
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: headers(extra),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    if (res.status === 401) askForKey(data.detail);
    throw new ApiError(res.status, data.detail || `요청 실패 (${res.status})`);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      let id = null;
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("id:")) id = Number(line.slice(3).trim());
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")), id };
    }
  }
}

// ------------------------------------------------------------------ helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "html") node.innerHTML = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function when(seconds) {
  const d = new Date(seconds * 1000);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString("ko-KR", { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString("ko-KR", { month: "short", day: "numeric" });
}

const agentTitle = (name) => (state.agents.find((a) => a.name === name) || {}).title || name;
const sourceLabel = (s) => [s.doc, s.article_no, s.article_title && `(${s.article_title})`].filter(Boolean).join(" ");
const isPhone = () => window.matchMedia("(max-width: 760px)").matches;
const PLACEHOLDER = "메시지를 입력하세요";
const REPLY_PLACEHOLDER = "질문에 답해 주세요";

// An article's text without its heading line (the panel shows the heading already).
function articleBody(text, articleNo) {
  const [first, ...rest] = String(text || "").split("\n");
  return articleNo && first.trim().startsWith(articleNo) && rest.length ? rest.join("\n").trim() : text;
}

function scrollToEnd() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

// ------------------------------------------------------------------ steps

function describe(e) {
  switch (e.type) {
    case "thinking": return ["생각", e.content || e.step];
    case "planning": return ["계획", e.content || "다음에 할 일을 정하는 중"];
    case "tool_selected":
      return ["도구 선택", (e.tools || []).map((t) => t.name).join(", ") || e.content || ""];
    case "tool_result":
      return [e.ok === false ? "도구 실패" : "도구 결과", `${e.tool || ""} ${preview(e.content)}`.trim()];
    case "evaluation_result":
      return ["평가", e.is_sufficient ? "정보가 충분합니다" : `더 찾아봅니다${e.missing_info ? ` — ${e.missing_info}` : ""}`];
    case "generating": return ["답변", e.content || "답변을 작성하는 중"];
    case "queued": return ["대기", e.content];
    case "slots": return ["작업 정보", (e.missing || []).length ? `남은 항목: ${missingLabels(e).join(", ")}` : "모두 채워짐"];
    case "question": return ["질문", e.content];
    case "error": return [e.code === "cancelled" ? "중지" : "오류", e.content];
    default: return [e.type, preview(e.content)];
  }
}

function preview(content) {
  if (content === undefined || content === null) return "";
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

// ------------------------------------------------------------------ one exchange on screen

class Exchange {
  constructor(turn) {
    this.turn = turn;
    this.steps = 0;
    this.text = "";
    this.node = el("article", { class: "exchange" });
    this.node.append(el("div", { class: "bubble user" }, turn.message));
    this.reply = el("div", { class: "bubble assistant" });
    this.details = el("details", { class: "steps" });
    this.summary = el("summary", {}, "생각 과정");
    this.stepList = el("ol");
    this.details.append(this.summary, this.stepList);
    this.details.hidden = true;
    this.answer = el("div", { class: "answer markdown" });
    this.sources = el("div", { class: "sources" });
    this.sources.hidden = true;
    this.notice = el("div", { class: "notice" });
    this.notice.hidden = true;
    this.reply.append(this.details, this.answer, this.sources, this.notice);
    this.node.append(this.reply);
    $("messages").append(this.node);
  }

  event(e) {
    if (this.queued && e.type !== "queued") {
      this.queued = false;
      this.notice.hidden = true;
    }
    if (e.type === "token") {
      this.text += e.content;
      this.answer.classList.add("streaming");
      this.renderSoon();
      return;
    }
    if (e.type === "done") return this.done(e);
    if (e.type === "sources") return this.setSources(e.content);
    if (e.type === "slots") showSlots(e.content, e.missing, e.rows);
    if (e.type === "tool_result" && e.step) addAudit(e.step, this.turn.message, e.tool);
    if (e.type === "question" && e.approval && !this.finished) this.showApproval(e.approval);
    this.addStep(e);
    // The model is busy with other answers: where this one waits, until its turn comes.
    if (e.type === "queued" && !this.finished) {
      this.queued = true;
      this.showNotice(e.content, "wait");
      scrollToEnd();
    }
  }

  // A tool's side effect waits for a yes: approve, reject, or approve with edited arguments.
  showApproval(request) {
    const args = el("textarea", { class: "approval-args", rows: 4, "aria-label": "도구 인자 (JSON)" });
    args.value = JSON.stringify(request.args, null, 2);
    const problem = el("div", { class: "muted" });
    const answer = (reply) => { card.remove(); send(reply); };
    const edited = () => {
      try {
        answer(JSON.stringify({ approve: true, args: JSON.parse(args.value) }));
      } catch (err) {
        problem.textContent = `인자가 올바른 JSON이 아닙니다: ${err.message}`;
      }
    };
    const card = el(
      "div",
      { class: "approval", role: "group", "aria-label": "도구 실행 승인" },
      el("b", {}, `도구 실행 승인: ${request.tool}`),
      el("div", { class: "muted" }, request.why || ""),
      args,
      problem,
      el("div", { class: "approval-buttons" },
        el("button", { type: "button", class: "primary", onclick: () => answer("승인") }, "승인"),
        el("button", { type: "button", onclick: () => answer("거절") }, "거절"),
        el("button", { type: "button", onclick: edited }, "수정해서 승인")),
    );
    this.reply.append(card);
  }

  addStep(e) {
    const [label, text] = describe(e);
    this.steps += 1;
    this.details.hidden = false;
    if (!this.finished) this.details.open = true;
    this.summary.textContent = `생각 과정 · ${this.steps}단계`;
    this.stepList.append(el("li", { class: `step step-${e.type}` }, el("b", {}, label), " ", text || ""));
    // A stopped answer says so itself (its last line); other errors get a notice.
    if (e.type === "error" && e.code !== "cancelled") this.showNotice(e.content, "error");
  }

  renderSoon() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = null;
      this.answer.innerHTML = renderMarkdown(this.text);
      scrollToEnd();
    });
  }

  setSources(sources) {
    this.sources.replaceChildren();
    if (!sources || !sources.length) return;
    this.sources.hidden = false;
    this.sources.append(el("span", { class: "muted" }, "출처"));
    for (const s of sources) {
      this.sources.append(el("button", { class: "chip", type: "button", title: "원문 보기", onclick: () => showArticle(s) }, sourceLabel(s)));
    }
  }

  showNotice(text, kind) {
    this.notice.hidden = false;
    this.notice.className = `notice ${kind}`;
    this.notice.textContent = text;
  }

  done(e) {
    this.finished = true;
    if (this.pending) cancelAnimationFrame(this.pending);
    this.pending = null;
    this.answer.classList.remove("streaming");
    // The final answer is authoritative (budget or failure messages replace partial text).
    this.text = e.content || this.text;
    this.answer.innerHTML = renderMarkdown(this.text);
    this.details.open = false;
    if (e.waiting) this.reply.classList.add("question");
    if (e.sources && e.sources.length) this.setSources(e.sources);
    scrollToEnd();
  }

  static fromJournal(turn) {
    const x = new Exchange(turn);
    x.finished = true;
    for (const e of turn.events || []) x.event(e);
    if (turn.status === "interrupted" || turn.status === "running") {
      x.answer.innerHTML = "";
      const retry = el("button", { class: "link", type: "button", onclick: () => { $("input").value = turn.message; $("input").focus(); } }, "다시 보내기");
      x.showNotice(turn.status === "running" ? "답변을 만드는 중입니다…" : "이 답변은 중간에 끊겼습니다 (서버가 다시 시작됨). 대화는 직전 답변까지 그대로입니다. ", "warn");
      if (turn.status === "interrupted") x.notice.append(retry);
      return x;
    }
    x.done({ content: turn.answer || "", sources: turn.sources, waiting: turn.waiting });
    if (turn.status === "failed") x.showNotice("이 질문은 처리하지 못해 대화 기록에 남기지 않았습니다.", "error");
    return x;
  }
}

// ------------------------------------------------------------------ panel

// Desktop: the panel opens beside the chat whenever it has something to show. Phone: it is an
// overlay opened on demand (the "정보" button, or a click on a source).
function panelVisible(open) {
  const has = !$("slots-card").hidden || !$("article-card").hidden || !$("audit-card").hidden;
  const show = has && open;
  $("panel").hidden = !show;
  $("panel").classList.toggle("open", show);
  $("open-panel").hidden = !has || show;
  $("scrim").hidden = !(show && isPhone());
}

// The task agent's slots as people read them: its `rows` carry Korean labels and values
// ("인원" "2명", "음식 종류" "냉면 (한식)"); raw slots (a thread's saved state) show as they are.
function slotRows(slots, missing, rows) {
  if (rows && rows.length) return rows;
  const keys = new Set([...Object.keys(slots || {}), ...missing]);
  return [...keys].map((k) => {
    const v = (slots || {})[k];
    const empty = v === undefined || v === null || v === "";
    return { label: k, value: empty ? "" : String(v), missing: missing.includes(k) };
  });
}

function missingLabels(e) {
  const labels = Object.fromEntries((e.rows || []).map((r) => [r.slot, r.label]));
  return (e.missing || []).map((k) => labels[k] || k);
}

function showSlots(slots, missing = [], rows = null) {
  const table = $("slots-table");
  table.replaceChildren();
  for (const r of slotRows(slots, missing, rows)) {
    table.append(el("tr", { class: r.value ? "" : "missing" }, el("th", {}, r.label), el("td", {}, r.value || "미입력")));
  }
  const left = missingLabels({ missing, rows });
  $("slots-status").textContent = left.length ? `아직 필요한 정보: ${left.join(", ")}` : "필요한 정보를 모두 받았습니다.";
  $("slots-card").hidden = false;
  panelVisible(!isPhone());
}

// One audit record (plan-then-execute's past_steps entry: {step: {step_id, tool, ...}, status,
// output}; a flat {step_id, tool, status, output} is read the same way).
function addAudit(record, message, tool) {
  const step = record.step && typeof record.step === "object" ? record.step : record;
  const status = record.status || (record.ok === false ? "failure" : "success");
  const item = el("li", { class: `audit-${status === "success" ? "ok" : "fail"}` },
    el("b", {}, `${step.step_id ?? ""} ${step.tool || tool || ""}`.trim()),
    el("span", { class: "badge" }, status === "success" ? "성공" : status === "failure" ? "실패" : status),
    el("div", { class: "muted" }, preview(record.output ?? step.input ?? "")));
  item.title = message;
  $("audit-list").append(item);
  $("audit-card").hidden = false;
  panelVisible(!isPhone());
}

async function showArticle(source) {
  $("article-card").hidden = false;
  $("article-doc").textContent = source.doc;
  $("article-title").textContent = [source.article_no, source.article_title].filter(Boolean).join(" ");
  $("article-text").textContent = articleBody(source.text, source.article_no) || "불러오는 중…";
  panelVisible(true);
  $("article-card").scrollIntoView({ block: "start" });
  if (!source.article_no || !state.thread) return;
  try {
    const q = new URLSearchParams({ doc: source.doc, no: source.article_no, kind: source.kind || "" });
    const article = await api(`/threads/${state.thread.id}/article?${q}`);
    $("article-doc").textContent = article.doc;
    $("article-title").textContent = [article.article_no, article.article_title && `(${article.article_title})`].filter(Boolean).join(" ");
    $("article-text").textContent = articleBody(article.text, article.article_no);
  } catch (err) {
    if (!source.text) $("article-text").textContent = err.message;
  }
}

function resetPanel() {
  for (const id of ["slots-card", "article-card", "audit-card"]) $(id).hidden = true;
  $("audit-list").replaceChildren();
  panelVisible(false);
}

// ------------------------------------------------------------------ threads

async function loadThreads() {
  state.threads = (await api("/threads")).threads;
  const nav = $("threads");
  nav.replaceChildren();
  if (!state.threads.length) nav.append(el("p", { class: "muted empty" }, "아직 대화가 없습니다."));
  for (const t of state.threads) {
    const item = el("a", { href: `#/t/${t.id}`, class: `thread${state.thread && state.thread.id === t.id ? " active" : ""}` },
      el("span", { class: "title" }, t.title || "새 대화"),
      el("span", { class: "meta" }, `${agentTitle(t.agent)} · ${when(t.updated_at)}`));
    const del = el("button", { class: "icon delete", type: "button", "aria-label": "대화 삭제", title: "대화 삭제",
      onclick: async (ev) => {
        ev.preventDefault();
        if (!confirm("이 대화를 삭제할까요?")) return;
        await api(`/threads/${t.id}`, { method: "DELETE" });
        if (state.thread && state.thread.id === t.id) location.hash = "";
        await loadThreads();
      } }, "✕");
    item.append(del);
    nav.append(item);
  }
}

async function openThread(id) {
  const view = await api(`/threads/${id}`);
  state.thread = view;
  resetPanel();
  $("welcome").hidden = true;
  for (const node of [...$("messages").querySelectorAll(".exchange")]) node.remove();
  $("thread-title").textContent = view.title || "새 대화";
  const doc = view.options && view.options.contract ? " · 계약서 연결됨" : "";
  $("thread-meta").textContent = `${agentTitle(view.agent)}${doc}`;
  const live = view.turns.length && view.turns[view.turns.length - 1].status === "running" ? view.turns.pop() : null;
  for (const turn of view.turns) Exchange.fromJournal(turn);
  const stateView = view.state || {};
  const slots = stateView.slots || (stateView.conversation || {}).slots;
  if (slots && $("slots-card").hidden) showSlots(slots, []);
  $("composer").hidden = false;
  const last = view.turns[view.turns.length - 1];
  $("input").placeholder = last && last.waiting ? REPLY_PLACEHOLDER : PLACEHOLDER;
  scrollToEnd();
  closeSidebar();
  document.querySelectorAll(".thread").forEach((a) => a.classList.toggle("active", a.getAttribute("href") === `#/t/${id}`));
  if (!isPhone()) $("input").focus();
  if (live) await watch(live);
}

// The thread is answering right now (opened, or the page reloaded, mid-answer): show the answer
// from its beginning as it goes on. One that another server process makes shows as running.
async function watch(turn) {
  const x = new Exchange(turn);
  const threadId = state.thread.id;
  answering(true);
  try {
    await follow(x, threadId, eventStream(`/threads/${threadId}/events`));
  } catch (err) {
    if (err.status !== 409) return x.showNotice(err.message, "error");
    const view = await api(`/threads/${threadId}`);
    const last = view.turns[view.turns.length - 1];
    if (last && last.status === "running") x.showNotice("답변을 만드는 중입니다…", "warn");
    else await openThread(threadId); // it ended meanwhile
  } finally {
    answering(false);
  }
}

// Feeds an answer's events to its exchange. A stream that drops before `done` is taken up again
// where it stopped (the server keeps an answer going a few seconds for that); if the answer
// ended meanwhile, the thread is redrawn from its journal.
async function follow(x, threadId, stream) {
  let lastId = null;
  for (let failures = 0; failures < 3 && !x.finished; ) {
    try {
      for await (const { event, data, id } of stream) {
        if (id !== null) lastId = id;
        failures = 0;
        x.event({ ...data, type: data.type || event });
        if (data.type === "done") $("input").placeholder = data.waiting ? REPLY_PLACEHOLDER : PLACEHOLDER;
      }
    } catch (err) {
      if (err instanceof ApiError && lastId === null) throw err; // refused (busy, 409, 503…)
      if (err instanceof ApiError) {
        if (state.thread && state.thread.id === threadId) await openThread(threadId);
        return;
      }
    }
    if (x.finished || !state.thread || state.thread.id !== threadId) return;
    failures += 1;
    await new Promise((resume) => setTimeout(resume, 500 * failures));
    stream = eventStream(`/threads/${threadId}/events`, { lastId: lastId ?? -1 });
  }
  if (!x.finished) x.showNotice("연결이 끊겼습니다. 대화를 다시 열어 확인하세요.", "warn");
}

// While an answer is being made: sending waits, and the stop button halts it at once.
function answering(busy) {
  state.busy = busy;
  $("send").disabled = busy;
  $("stop").hidden = !busy;
  $("stop").disabled = false;
}

async function stopAnswer() {
  if (!state.busy || !state.thread) return;
  $("stop").disabled = true;
  try {
    await api(`/threads/${state.thread.id}/cancel`, { method: "POST" });
  } catch (err) {
    $("stop").disabled = false;
    $("thread-meta").textContent = err.message;
  }
}

async function send(message) {
  if (state.busy || !state.thread) return;
  answering(true);
  const x = new Exchange({ message });
  const threadId = state.thread.id;
  scrollToEnd();
  try {
    await follow(x, threadId, eventStream(`/threads/${threadId}/messages`, { body: { content: message } }));
  } catch (err) {
    x.showNotice(err.message, "error");
  } finally {
    answering(false);
    loadThreads()
      .then(() => {
        const listed = state.threads.find((t) => state.thread && t.id === state.thread.id);
        if (listed && listed.title) $("thread-title").textContent = listed.title;
      })
      .catch(() => {});
  }
}

// ------------------------------------------------------------------ dialogs

function askForKey(message) {
  $("key-error").textContent = message || "";
  if (!$("key-dialog").open) $("key-dialog").showModal();
}

async function openNewDialog() {
  $("new-error").textContent = "";
  $("upload-status").hidden = true;
  $("new-title").value = "";
  $("contract-file").value = "";
  $("file-name").textContent = ".md .txt .pdf .docx .hwp .hwpx";
  const choices = $("agent-choices");
  choices.replaceChildren();
  const preferred = state.agents.some((a) => a.name === "contract") ? "contract" : (state.agents[0] || {}).name;
  state.agents.forEach((a) => {
    choices.append(el("label", { class: "choice" },
      el("input", { type: "radio", name: "agent", value: a.name, checked: a.name === preferred, onchange: showContractField }),
      el("span", {}, el("b", {}, a.title), el("small", { class: "muted" }, a.name))));
  });
  const selects = { contract: $("contract-select"), standard: $("standard-select") };
  selects.contract.replaceChildren(el("option", { value: "" }, "계약서 없음"));
  selects.standard.replaceChildren(el("option", { value: "" }, "표준계약서 비교 안 함"));
  try {
    for (const d of (await api("/documents")).documents) {
      const label = `${d.name}${d.info && d.info.articles ? ` (${d.info.articles}개 조항)` : ""}`;
      if (selects[d.kind]) selects[d.kind].append(el("option", { value: d.id }, label));
    }
  } catch { /* a missing key shows its own dialog */ }
  selects.standard.hidden = selects.standard.options.length < 2;
  if (selects.contract.options.length > 1) selects.contract.selectedIndex = 1; // the newest
  showContractField();
  $("new-dialog").showModal();
}

// Agents that answer about a contract get the contract picker (the others ignore documents).
const takesContract = (a) => /contract|계약서/i.test(`${a.name} ${a.title}`);

function showContractField() {
  const name = (document.querySelector("input[name=agent]:checked") || {}).value;
  $("contract-field").hidden = !takesContract(state.agents.find((a) => a.name === name) || {});
}

async function uploadContract(file) {
  const doc = await uploadFile(api, file, "contract", state.config.max_upload_bytes, $("upload-status"));
  $("upload-status").textContent = `${doc.name}: ${doc.info.articles ?? 0}개 조항을 읽었습니다.`;
  return doc;
}

async function createThread(ev) {
  ev.preventDefault();
  const agent = (document.querySelector("input[name=agent]:checked") || {}).value;
  if (!agent) { $("new-error").textContent = "에이전트를 고르세요."; return; }
  $("create-thread").disabled = true;
  try {
    const withContract = !$("contract-field").hidden;
    let contract = withContract ? $("contract-select").value || null : null;
    const file = withContract && $("contract-file").files[0];
    if (file) contract = (await uploadContract(file)).id;
    const standard = withContract ? $("standard-select").value || null : null;
    const thread = await api("/threads", { method: "POST", json: { agent, contract, standard, title: $("new-title").value } });
    $("contract-file").value = "";
    $("new-dialog").close();
    await loadThreads();
    location.hash = `#/t/${thread.id}`;
  } catch (err) {
    $("new-error").textContent = err.message;
  } finally {
    $("create-thread").disabled = false;
  }
}

// ------------------------------------------------------------------ layout on phones

function openSidebar() { $("sidebar").classList.add("open"); $("scrim").hidden = false; }
function closeSidebar() { $("sidebar").classList.remove("open"); if (!$("panel").classList.contains("open") || !isPhone()) $("scrim").hidden = true; }

// ------------------------------------------------------------------ start

async function route() {
  const m = location.hash.match(/^#\/t\/([0-9a-f]+)/);
  if (m) {
    try { await openThread(m[1]); } catch (err) { $("thread-meta").textContent = err.message; }
  } else {
    state.thread = null;
    for (const node of [...$("messages").querySelectorAll(".exchange")]) node.remove();
    $("welcome").hidden = false;
    $("composer").hidden = true;
    $("thread-title").textContent = "두레";
    $("thread-meta").textContent = "왼쪽에서 대화를 고르거나 새 대화를 시작하세요.";
    resetPanel();
  }
}

async function start() {
  state.config = await api("/config");
  state.agents = (await api("/agents")).agents;
  $("open-key").hidden = !state.config.auth;
  if (state.config.auth && !state.key) askForKey("");
  try { await loadThreads(); } catch { /* shown by the key dialog */ }
  await route();
}

$("composer").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const message = $("input").value.trim();
  if (!message) return;
  $("input").value = "";
  $("input").style.height = "";
  send(message);
});
$("input").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    $("composer").requestSubmit();
  }
});
$("input").addEventListener("input", () => {
  const box = $("input");
  box.style.height = "";
  box.style.height = `${Math.min(box.scrollHeight, 200)}px`;
});
$("stop").addEventListener("click", stopAnswer);
$("new-thread").addEventListener("click", openNewDialog);
$("contract-file").addEventListener("change", () => {
  const file = $("contract-file").files[0];
  $("file-name").textContent = file ? `${file.name} (${Math.ceil(file.size / 1024)}KB)` : "";
});
$("welcome-new").addEventListener("click", openNewDialog);
$("new-form").addEventListener("submit", (ev) => { if (ev.submitter && ev.submitter.value === "ok") createThread(ev); });
$("key-form").addEventListener("submit", async (ev) => {
  if (!ev.submitter || ev.submitter.value !== "ok") return;
  ev.preventDefault();
  state.key = $("key-input").value.trim();
  localStorage.setItem(KEY_STORE, state.key);
  try {
    await loadThreads();
    $("key-dialog").close();
    await route();
  } catch (err) {
    $("key-error").textContent = err.message;
  }
});
$("open-key").addEventListener("click", () => askForKey(""));
$("open-docs").addEventListener("click", documentsDialog({ api, el, limit: () => state.config.max_upload_bytes }));
$("open-sidebar").addEventListener("click", openSidebar);
$("close-sidebar").addEventListener("click", closeSidebar);
$("open-panel").addEventListener("click", () => panelVisible(true));
$("close-panel").addEventListener("click", () => panelVisible(false));
$("scrim").addEventListener("click", () => { closeSidebar(); panelVisible(false); $("scrim").hidden = true; });
window.addEventListener("hashchange", route);
start().catch((err) => { $("thread-meta").textContent = `서버에 연결하지 못했습니다: ${err.message}`; });
