// Dure web UI: the page's state, the thread list, sending a message and following its answer,
// the dialogs, routing and start-up. Beside it: client.js (network), exchange.js (one exchange
// on screen), panel.js (side panel), ui.js (shared helpers). No build step.
import { ApiError, connect } from "/static/client.js";
import { documentsDialog, uploadFile } from "/static/documents.js";
import { Exchange } from "/static/exchange.js";
import { panelVisible, resetPanel, showArticle, showSlots } from "/static/panel.js";
import { $, el, isPhone, scrollToEnd } from "/static/ui.js";

const state = { config: null, agents: [], threads: [], thread: null, busy: false };
const { api, eventStream, hasKey, saveKey } = connect({ unauthorized: askForKey });
// What an exchange on screen calls back: sending a reply, and opening a source's article.
const actions = { send, openArticle: (source) => showArticle(source, api, state.thread) };

function when(seconds) {
  const d = new Date(seconds * 1000);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString("ko-KR", { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString("ko-KR", { month: "short", day: "numeric" });
}

const agentTitle = (name) => (state.agents.find((a) => a.name === name) || {}).title || name;
const PLACEHOLDER = "메시지를 입력하세요";
const REPLY_PLACEHOLDER = "질문에 답해 주세요";

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
  for (const turn of view.turns) Exchange.fromJournal(turn, actions);
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
  const x = new Exchange(turn, actions);
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
  const x = new Exchange({ message }, actions);
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
  if (state.config.auth && !hasKey()) askForKey("");
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
  saveKey($("key-input").value.trim());
  try {
    await loadThreads();
    $("key-dialog").close();
    await route();
  } catch (err) {
    $("key-error").textContent = err.message;
  }
});
$("open-key").addEventListener("click", () => askForKey(""));
$("open-docs").addEventListener("click", documentsDialog({ api, limit: () => state.config.max_upload_bytes }));
$("open-sidebar").addEventListener("click", openSidebar);
$("close-sidebar").addEventListener("click", closeSidebar);
$("open-panel").addEventListener("click", () => panelVisible(true));
$("close-panel").addEventListener("click", () => panelVisible(false));
$("scrim").addEventListener("click", () => { closeSidebar(); panelVisible(false); $("scrim").hidden = true; });
window.addEventListener("hashchange", route);
start().catch((err) => { $("thread-meta").textContent = `서버에 연결하지 못했습니다: ${err.message}`; });
