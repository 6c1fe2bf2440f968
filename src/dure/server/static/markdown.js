// A small, safe Markdown renderer for answers: the text is HTML-escaped first, so nothing a
// model writes can become markup; only the constructs below are turned into elements.
// Supported: headings, paragraphs, line breaks, **bold**, *italic*, ~~strike~~, `code`,
// fenced code blocks, lists (ordered/unordered, one level of nesting), > quotes, tables,
// horizontal rules, and [links](https://...) to http(s) and mailto addresses only.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function inline(escaped) {
  // Code spans first, parked so their content is not formatted further.
  const parked = [];
  let s = escaped.replace(/`([^`\n]+)`/g, (_, code) => {
    parked.push(`<code>${code}</code>`);
    return `\u0000${parked.length - 1}\u0000`;
  });
  s = s.replace(/\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)/g,
    (_, label, url) => `<a href="${url}" target="_blank" rel="noopener noreferrer">${label}</a>`);
  s = s.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>");
  s = s.replace(/__([^_\n]+)__/g, "<strong>$1</strong>");
  s = s.replace(/(^|[^*])\*([^*\n]+)\*/g, "$1<em>$2</em>");
  s = s.replace(/~~([^~\n]+)~~/g, "<del>$1</del>");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => parked[Number(i)]);
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const TABLE_RULE = /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/;

function cells(line) {
  return line.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));
}

function renderList(lines) {
  // lines: [{indent, ordered, text}] → nested <ul>/<ol> (deeper indent = one level down).
  const base = lines[0].indent;
  const tag = lines[0].ordered ? "ol" : "ul";
  let html = `<${tag}>`;
  let i = 0;
  while (i < lines.length) {
    const item = lines[i];
    let j = i + 1;
    const children = [];
    while (j < lines.length && lines[j].indent > base) children.push(lines[j++]);
    html += `<li>${inline(item.text)}${children.length ? renderList(children) : ""}</li>`;
    i = j;
  }
  return html + `</${tag}>`;
}

export function renderMarkdown(source) {
  const lines = escapeHtml(source || "").replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inline).join("<br>")}</p>`);
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*```\s*([\w-]*)\s*$/);
    if (fence) {
      flush();
      const body = [];
      while (++i < lines.length && !/^\s*```\s*$/.test(lines[i])) body.push(lines[i]);
      out.push(`<pre><code>${body.join("\n")}</code></pre>`);
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*$/);
    if (heading) {
      flush();
      const level = Math.min(heading[1].length + 2, 6); // answers sit below the page headings
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); out.push("<hr>"); continue; }
    if (/^\s*&gt;/.test(line)) {
      flush();
      const quoted = [];
      while (i < lines.length && /^\s*&gt;/.test(lines[i])) {
        quoted.push(lines[i].replace(/^\s*&gt;\s?/, ""));
        i++;
      }
      i--;
      out.push(`<blockquote>${quoted.map(inline).join("<br>")}</blockquote>`);
      continue;
    }
    if (line.trim().startsWith("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1].trim())) {
      flush();
      const head = cells(line);
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].trim().startsWith("|")) rows.push(cells(lines[i++]));
      i--;
      const th = head.map((c) => `<th>${c}</th>`).join("");
      const tb = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("");
      out.push(`<div class="table-wrap"><table><thead><tr>${th}</tr></thead><tbody>${tb}</tbody></table></div>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      const items = [];
      while (i < lines.length && LIST_ITEM.test(lines[i])) {
        const [, indent, marker, text] = lines[i].match(LIST_ITEM);
        items.push({ indent: indent.length, ordered: /\d/.test(marker), text });
        i++;
      }
      i--;
      out.push(renderList(items));
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return out.join("\n");
}
