"""A Kakao Local keyword search on loopback for benchmarks: every query finds three restaurants,
so a lunch turn anywhere reaches its answer (the sample catalogue knows nine areas only).

It speaks `/v2/local/search/keyword.json` as Kakao documents it (`meta`, `documents`); the
places are named neutrally ("루프백 식당 1호"), so no place name reads as a dish.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from dure.settings import get_settings

KEY = "benchmark-loopback-key"
PLACES = 3


class _Kakao(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        query = parse_qs(urlparse(self.path).query).get("query", [""])[0]
        docs = [
            {
                "id": str(i),
                "place_name": f"루프백 식당 {i}호",
                "category_name": "음식점",
                "category_group_code": "FD6",
                "phone": "",
                "address_name": query.rsplit(" ", 1)[0],
                "road_address_name": "",
                "x": "127.0",
                "y": "37.5",
                "place_url": "",
                "distance": "",
            }
            for i in range(1, PLACES + 1)
        ]
        meta = {"total_count": PLACES, "pageable_count": PLACES, "is_end": True}
        body = json.dumps({"meta": meta, "documents": docs}, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def loopback_kakao() -> Iterator[None]:
    """While open, the process's settings search this server as Kakao (environment and
    `get_settings`, which the lunch place check reads, both)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Kakao)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {
        "DURE_TASKS__PLACE_SEARCH": "kakao",
        "DURE_TASKS__KAKAO_REST_KEY": KEY,
        "DURE_TASKS__KAKAO_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    get_settings.cache_clear()
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()
        server.shutdown()
        server.server_close()
