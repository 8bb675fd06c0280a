"""Where the API is and which key to send: an argument, else the environment, else the key file that
`rapport up` writes (the same order as rapport's own tools)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_KEY_FILE = Path(".rapport") / "api-key"  # `rapport up`'s default data dir, relative to where it ran


def base_url(url: Optional[str] = None) -> str:
    """`url`, else $RAPPORT_URL, else http://127.0.0.1:8080."""
    return (url or os.environ.get("RAPPORT_URL") or DEFAULT_URL).rstrip("/")


def api_key(key: Optional[str] = None, key_file: Union[str, Path, None] = None) -> Optional[str]:
    """What is named explicitly first: `key`, else the file `key_file`; then the environment:
    $RAPPORT_API_KEY, else the file $RAPPORT_API_KEY_FILE; else `rapport up`'s ./.rapport/api-key.
    None: no key found (a keyless server; otherwise a 401 AuthError at the first call). A key file
    that is named must exist."""
    if key:
        return key.strip()
    if key_file is None and os.environ.get("RAPPORT_API_KEY"):
        return os.environ["RAPPORT_API_KEY"].strip()
    named = key_file or os.environ.get("RAPPORT_API_KEY_FILE")
    path = Path(named) if named else DEFAULT_KEY_FILE
    try:
        return path.read_text().strip() or None
    except FileNotFoundError:
        if named:
            raise
        return None
