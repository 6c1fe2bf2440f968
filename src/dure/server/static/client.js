// Dure web UI, network layer: the API key (kept in localStorage), JSON calls to the server, and
// its Server-Sent Events read over fetch.

const KEY_STORE = "dure.apiKey";

export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// The client for this page: `unauthorized(message)` is called when the server refuses the key.
export function connect({ unauthorized }) {
  let key = localStorage.getItem(KEY_STORE) || "";

  function headers(extra = {}) {
    return key ? { Authorization: `Bearer ${key}`, ...extra } : extra;
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
      if (res.status === 401) unauthorized(message);
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
      if (res.status === 401) unauthorized(data.detail);
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

  const hasKey = () => Boolean(key);

  // The key typed into the key dialog: used from the next request on, and remembered.
  function saveKey(value) {
    key = value;
    localStorage.setItem(KEY_STORE, key);
  }

  return { api, eventStream, hasKey, saveKey };
}
