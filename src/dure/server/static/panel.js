// Dure web UI, the side panel: the task's slots, the audit trail of tool steps and the article a
// source points to — beside the chat on desktop, an overlay on phones.
import { $, el, isPhone, preview } from "/static/ui.js";

// Desktop: the panel opens beside the chat whenever it has something to show. Phone: it is an
// overlay opened on demand (the "정보" button, or a click on a source).
export function panelVisible(open) {
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

export function missingLabels(e) {
  const labels = Object.fromEntries((e.rows || []).map((r) => [r.slot, r.label]));
  return (e.missing || []).map((k) => labels[k] || k);
}

export function showSlots(slots, missing = [], rows = null) {
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
export function addAudit(record, message, tool) {
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

// An article's text without its heading line (the panel shows the heading already).
function articleBody(text, articleNo) {
  const [first, ...rest] = String(text || "").split("\n");
  return articleNo && first.trim().startsWith(articleNo) && rest.length ? rest.join("\n").trim() : text;
}

// A source's article: what the source carries at once, then (when it names an article and a
// thread is open) the full text, read through `api` from that `thread`'s documents.
export async function showArticle(source, api, thread) {
  $("article-card").hidden = false;
  $("article-doc").textContent = source.doc;
  $("article-title").textContent = [source.article_no, source.article_title].filter(Boolean).join(" ");
  $("article-text").textContent = articleBody(source.text, source.article_no) || "불러오는 중…";
  panelVisible(true);
  $("article-card").scrollIntoView({ block: "start" });
  if (!source.article_no || !thread) return;
  try {
    const q = new URLSearchParams({ doc: source.doc, no: source.article_no, kind: source.kind || "" });
    const article = await api(`/threads/${thread.id}/article?${q}`);
    $("article-doc").textContent = article.doc;
    $("article-title").textContent = [article.article_no, article.article_title && `(${article.article_title})`].filter(Boolean).join(" ");
    $("article-text").textContent = articleBody(article.text, article.article_no);
  } catch (err) {
    if (!source.text) $("article-text").textContent = err.message;
  }
}

export function resetPanel() {
  for (const id of ["slots-card", "article-card", "audit-card"]) $(id).hidden = true;
  $("audit-list").replaceChildren();
  panelVisible(false);
}
