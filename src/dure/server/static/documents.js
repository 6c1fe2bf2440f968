// Files on the server: the upload every picker shares, and "내 문서" — the documents the
// assistant searches (kind "document"): listed, added and deleted here.

import { $, el } from "/static/ui.js";

// Upload `file` as `kind`; `status` shows progress. Throws with the server's reason.
export async function uploadFile(api, file, kind, limit, status) {
  if (file.size > limit) throw new Error(`파일이 너무 큽니다 (최대 ${(limit / 1e6).toFixed(0)}MB).`);
  const form = new FormData();
  form.append("file", file);
  form.append("kind", kind);
  status.hidden = false;
  status.textContent = `${file.name} 올리는 중…`;
  return api("/documents", { method: "POST", form });
}

const size = (bytes) => (bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1024))}KB` : `${(bytes / 1e6).toFixed(1)}MB`);

// The "내 문서" dialog: `api` is the app's client, `limit()` the upload cap.
export function documentsDialog({ api, limit }) {
  const dialog = $("docs-dialog");
  const list = $("docs-list");
  const status = $("docs-status");

  async function refresh() {
    const docs = (await api("/documents")).documents.filter((d) => d.kind === "document");
    list.replaceChildren();
    if (!docs.length) list.append(el("li", { class: "muted empty" }, "아직 올린 문서가 없습니다."));
    for (const d of docs) {
      list.append(el("li", { class: "doc" },
        el("span", { class: "title" }, d.name),
        el("span", { class: "muted" }, `${size(d.size)} · ${(d.info.chars || 0).toLocaleString("ko-KR")}자`),
        el("button", { class: "icon delete", type: "button", "aria-label": `${d.name} 삭제`, title: "문서 삭제",
          onclick: async () => {
            if (!confirm(`${d.name} 문서를 삭제할까요? 검색에서도 빠집니다.`)) return;
            await run(async () => {
              await api(`/documents/${d.id}`, { method: "DELETE" });
              status.hidden = false;
              status.textContent = `${d.name}: 삭제했습니다.`;
            });
          } }, "✕")));
    }
  }

  // One action at a time; its error shows in the dialog and the list is read again.
  async function run(action) {
    $("docs-error").textContent = "";
    try {
      await action();
    } catch (err) {
      status.hidden = true;
      $("docs-error").textContent = err.message;
    }
    await refresh().catch((err) => { $("docs-error").textContent = err.message; });
  }

  $("docs-file").addEventListener("change", async () => {
    const input = $("docs-file");
    const files = [...input.files];
    input.value = "";
    await run(async () => {
      for (const file of files) {
        const doc = await uploadFile(api, file, "document", limit(), status);
        status.textContent = `${doc.name}: ${doc.info.chars.toLocaleString("ko-KR")}자를 읽어 검색에 넣었습니다.`;
      }
    });
  });

  return async function open() {
    $("docs-error").textContent = "";
    status.hidden = true;
    if (!dialog.open) dialog.showModal();
    await refresh().catch((err) => { $("docs-error").textContent = err.message; });
  };
}
