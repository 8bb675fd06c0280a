"""What a log line may say about a failure: where it happened, never its message. An exception's
message can quote the user's text (a message, a name), and logs are read by more people, kept longer
and shipped further than the data they describe."""
from __future__ import annotations

import os
import traceback


def where(e: BaseException, depth: int = 4) -> str:
    """`ExceptionType at file.py:12 in f <- other.py:40 in g`: the innermost frames first, no values."""
    frames = traceback.extract_tb(e.__traceback__)[-depth:]
    return type(e).__name__ + " at " + " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"
                                                   for f in reversed(frames))
