"""A PostgreSQL that stops answering, for the tests: a proxy on a Unix socket in front of the real
server that forwards bytes until `stall()` and then holds them (as a SIGSTOPped server, or one behind a
dead network, does: connections are accepted, nothing comes back) until `resume()`."""
from __future__ import annotations

import os
import select
import socket
import tempfile
import threading
from urllib.parse import parse_qs, urlsplit


class StallingProxy:
    def __init__(self, database_url: str):
        parts = urlsplit(database_url)
        host = parse_qs(parts.query)["host"][0]
        port = parts.port or 5432
        self.target = os.path.join(host, f".s.PGSQL.{port}")
        self.dir = tempfile.mkdtemp(prefix="rapport-stall-")
        self.url = database_url.replace(f"host={host}", f"host={self.dir}")
        self.stalled = threading.Event()
        self.closed = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(os.path.join(self.dir, f".s.PGSQL.{port}"))
        self.listener.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def stall(self) -> None:
        self.stalled.set()

    def resume(self) -> None:
        self.stalled.clear()

    def close(self) -> None:
        self.closed.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.connect(self.target)
        peer = {client: server, server: client}
        try:
            while not self.closed.is_set():
                if self.stalled.is_set():
                    self.closed.wait(0.02)
                    continue
                ready, _, _ = select.select([client, server], [], [], 0.02)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    peer[s].sendall(data)
        except OSError:
            return
        finally:
            client.close()
            server.close()
