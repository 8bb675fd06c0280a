"""A local OpenAI-compatible server for tests: /v1/chat/completions and /v1/embeddings, whose
behaviour a test sets: "ok", "slow" (answers after `delay` s), "down" (HTTP 503), "garbage" (not JSON)."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stub:
    def __init__(self, reply=None):
        self.mode, self.delay, self.calls = "ok", 1.0, []
        self.tool_args = '{"memories": [], "profile_update": null}'
        self.reply = reply or (lambda prompt: '{"mood": "excited", "energy": "high", "style": "playful"}')
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                stub.calls.append((self.path, body))
                if stub.mode == "down":
                    self.send_response(503)
                    self.end_headers()
                    return
                if stub.mode == "slow":
                    time.sleep(stub.delay)
                if self.path.endswith("/chat/completions"):
                    text = "no json here" if stub.mode == "garbage" else stub.reply(body["messages"][-1]["content"])
                    message = {"role": "assistant", "content": text}
                    if body.get("tools"):  # answer with a call of the first tool
                        args = "{not json" if stub.mode == "garbage" else stub.tool_args
                        message = {"role": "assistant", "content": None, "tool_calls": [{
                            "id": "call_1", "type": "function",
                            "function": {"name": body["tools"][0]["function"]["name"], "arguments": args}}]}
                    out = {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                           "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                else:
                    out = {"object": "list", "model": "stub", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                           "data": [{"object": "embedding", "index": i, "embedding": [1.0, float(i), 0.5]}
                                    for i, _ in enumerate(body.get("input", []))]}
                data = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
