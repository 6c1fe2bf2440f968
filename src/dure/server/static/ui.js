// Dure web UI, shared helpers: finding and making elements, the phone layout test, keeping the
// chat at its end, and the short preview of a step's content.

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
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

export const isPhone = () => window.matchMedia("(max-width: 760px)").matches;

export function scrollToEnd() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

export function preview(content) {
  if (content === undefined || content === null) return "";
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}
